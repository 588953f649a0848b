// One side of the etcd live harness (tests/live_clients/etcd_mutex.py): etcd's own Go
// client, clientv3/concurrency, as a Go service takes a lock. Built against Debian's
// golang-etcd-server-dev (etcd 3.4) in GOPATH mode, nothing downloaded.
//
//	etcd_mutex holder ENDPOINT TTL_SECONDS   # prints "granted", then "lost" when the
//	                                        # session ends (its Done channel closes)
//	etcd_mutex waiter ENDPOINT TTL_SECONDS   # prints "waiting", then "granted"
//
// The harness stamps each line as it reads it, on its own monotonic clock.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"go.etcd.io/etcd/clientv3"
	"go.etcd.io/etcd/clientv3/concurrency"
)

func fail(what string, err error) {
	fmt.Fprintf(os.Stderr, "etcd_mutex: %s: %v\n", what, err)
	os.Exit(1)
}

func main() {
	if len(os.Args) != 4 || (os.Args[1] != "holder" && os.Args[1] != "waiter") {
		fmt.Fprintln(os.Stderr, "usage: etcd_mutex holder|waiter ENDPOINT TTL_SECONDS")
		os.Exit(2)
	}
	ttl, err := strconv.Atoi(os.Args[3])
	if err != nil {
		fail("TTL_SECONDS", err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{os.Args[2]}, DialTimeout: 20 * time.Second})
	if err != nil {
		fail("connecting", err)
	}
	session, err := concurrency.NewSession(client, concurrency.WithTTL(ttl))
	if err != nil {
		fail("the session", err)
	}
	mutex := concurrency.NewMutex(session, "/locks/job")
	if os.Args[1] == "waiter" {
		fmt.Println("waiting")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := mutex.Lock(ctx); err != nil {
		fail("Lock", err)
	}
	fmt.Println("granted")
	if os.Args[1] == "holder" {
		<-session.Done() // the keep-alive channel closed: the lease's deadline passed or it expired
		fmt.Println("lost")
		time.Sleep(60 * time.Second)
	}
}
