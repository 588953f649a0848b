// The holder of the Curator live harness (tests/live_clients/curator_mutex.py): Apache
// Curator's InterProcessMutex, as a Java service takes a lock, with a listener that prints
// each connection state Curator reports. Built against Debian's libcurator-recipes-java.
//
//   java CuratorMutex CONNECT_STRING SESSION_MS   # prints "granted", then each state
//                                                 # ("suspended", "reconnected", "lost")
//
// The harness stamps each line as it reads it, on its own monotonic clock.
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorMutex {
    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: java CuratorMutex CONNECT_STRING SESSION_MS");
            System.exit(2);
        }
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(args[0])
                .sessionTimeoutMs(Integer.parseInt(args[1]))
                .connectionTimeoutMs(15000)
                .retryPolicy(new RetryNTimes(100, 100))
                .build();
        client.getConnectionStateListenable().addListener(
                (c, state) -> System.out.println(state.name().toLowerCase(Locale.ROOT)));
        client.start();
        InterProcessMutex mutex = new InterProcessMutex(client, "/locks/job");
        if (!mutex.acquire(30, TimeUnit.SECONDS)) {
            System.err.println("CuratorMutex: the lock was not granted within 30 s");
            System.exit(1);
        }
        System.out.println("granted");
        Thread.sleep(60000);
    }
}
