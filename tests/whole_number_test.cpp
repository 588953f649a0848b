// Whole numbers on the command line: every numeric option goes through one parser that
// refuses a sign, a fraction, an exponent, another base and a number past its range, never
// wrapping -1 into 2^64 - 1 seeds (an hours-long sweep, or 922337203685477632 incidents a
// day) or reading 2^64 as 2^64 - 1.
#include <catch2/catch.hpp>

#include <string>

#include "sim/whole_number.hpp"
#include "tests/program_support.hpp"

using locksim::parse_whole_number;
using locksim::testing::run_locksim;

TEST_CASE("a whole number is digits only, within its range") {
    CHECK(parse_whole_number("0") == 0u);
    CHECK(parse_whole_number("18446744073709551615") == UINT64_MAX);
    CHECK(parse_whole_number("4294967295", UINT32_MAX) == UINT32_MAX);
    for (const char* text : {"", "-1", "+3", "1e3", "0x10", "3.0", " 3", "3 ", "18446744073709551616",
                             "99999999999999999999", "000000000000000000018446744073709551616"})
        CHECK_FALSE(parse_whole_number(text));
    // Leading zeros add nothing, however many: not a number out of range.
    CHECK(parse_whole_number("000000000000000000001") == 1u);
    CHECK(parse_whole_number("000000000000000000000000000000018446744073709551615") == UINT64_MAX);
    CHECK(parse_whole_number("0000") == 0u);
    CHECK_FALSE(parse_whole_number("4294967296", UINT32_MAX));
}

TEST_CASE("a numeric option that is not a whole number of its range is refused, naming the option and range") {
    // One line: the refusal, and where the command's help is.
    const auto refused = [](const std::string& arguments, const std::string& refusal) {
        INFO(arguments);
        const auto ran = run_locksim(arguments);
        CHECK(ran.exit_code == 2);
        CHECK(ran.out.empty());
        const std::string command = arguments.substr(0, arguments.find(' '));
        CHECK(ran.err == refusal + "; run locksim " + command + " --help for more information\n");
    };
    // --design nope: were a number taken, the sweep stops there rather than run 2^64 - 1 seeds.
    const std::string sweep = "sweep scenarios/random-gc-pauses.json --design nope ";
    refused(sweep + "--seeds -1", "--seeds: expected a whole number from 1 to 18446744073709551615, got \"-1\"");
    refused(sweep + "--seeds 18446744073709551616",
            "--seeds: expected a whole number from 1 to 18446744073709551615, got \"18446744073709551616\"");
    refused(sweep + "--seeds 0", "--seeds: expected a whole number from 1 to 18446744073709551615, got \"0\"");
    refused(sweep + "--seeds 0x10", "--seeds: expected a whole number from 1 to 18446744073709551615, got \"0x10\"");
    refused(sweep + "--seeds 1e3", "--seeds: expected a whole number from 1 to 18446744073709551615, got \"1e3\"");
    refused(sweep + "--seeds 5 --start -5",
            "--start: expected a whole number from 0 to 18446744073709551615, got \"-5\"");
    const std::string runs_a_day =
        "--runs-per-day: expected a number from 0.000001 to 86400000, with at most six "
        "digits after the point, got ";
    refused(sweep + "--seeds 5 --runs-per-day -1", runs_a_day + "\"-1\"");
    refused(sweep + "--seeds 5 --runs-per-day 86400001", runs_a_day + "\"86400001\"");
    refused(sweep + "--seeds 5 --runs-per-day 86400000.000001", runs_a_day + "\"86400000.000001\"");
    refused(sweep + "--seeds 5 --runs-per-day 0", runs_a_day + "\"0\"");
    refused(sweep + "--seeds 5 --runs-per-day 0.0000001", runs_a_day + "\"0.0000001\"");
    refused(sweep + "--seeds 5 --runs-per-day 1e3", runs_a_day + "\"1e3\"");
    refused(sweep + "--seeds 5 --runs-per-day inf", runs_a_day + "\"inf\"");
    refused(sweep + "--seeds 5 --runs-per-day .5", runs_a_day + "\".5\"");
    refused(sweep + "--seeds 5 --runs-per-day 5.", runs_a_day + "\"5.\"");
    refused(sweep + "--seeds 5 --jobs -1", "--jobs: expected a whole number from 0 to 4294967295, got \"-1\"");
    refused(sweep + "--seeds 5 -j 2.5", "--jobs: expected a whole number from 0 to 4294967295, got \"2.5\"");
    refused("check scenarios/gc-pause-40s.json --jobs=-2",
            "--jobs: expected a whole number from 0 to 4294967295, got \"-2\"");
    refused("explore scenarios/gc-pause-40s.json --jobs 99999999999",
            "--jobs: expected a whole number from 0 to 4294967295, got \"99999999999\"");
    // Once a 309-digit range of doubles.
    refused("run scenarios/gc-pause-40s.json --max-events 0",
            "--max-events: expected a whole number from 1 to 18446744073709551615, got \"0\"");
    refused("run scenarios/gc-pause-40s.json --max-events -1",
            "--max-events: expected a whole number from 1 to 18446744073709551615, got \"-1\"");
    refused("run scenarios/gc-pause-40s.json --seed -1",
            "--seed: expected a whole number from 0 to 18446744073709551615, got \"-1\"");
    refused("run scenarios/gc-pause-40s.json --seed \"$(printf '1\\033[2J')\"",
            "--seed: expected a whole number from 0 to 18446744073709551615, got \"1\\x1b[2J\"");
}

TEST_CASE("a sweep whose seeds would pass 2^64 - 1 is refused before it runs") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 10 --start 18446744073709551610");
    CHECK(ran.exit_code == 2);
    CHECK(ran.err ==
          "--start: 10 seeds from 18446744073709551610 would pass seed 2^64-1 (18446744073709551615); "
          "lower --start or --seeds\n");
}

TEST_CASE("numbers within their range are taken as given, leading zeros adding nothing") {
    const auto taken = [](const std::string& numbers, const std::string& seeds) {
        INFO(numbers);
        const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --jobs 1 " + numbers);
        CHECK(ran.exit_code == 0);
        CHECK_THAT(ran.out, Catch::Contains("seeds " + seeds));
        CHECK_THAT(ran.out, Catch::Contains("At 288 runs a day"));
    };
    taken("--seeds 3 --start 18446744073709551613 --runs-per-day 288 --max-events 1000000",
          "18446744073709551613…18446744073709551615");
    taken("--seeds 0000000000000000000000000003 --runs-per-day 0000000000000000000000000000288", "1…3");
}

TEST_CASE("a rate of --max-rate is written in digits, never as strtod would read it") {
    for (const std::string rate : {"0x1", "5e-1", "inf", "nan", "+0.1", "-0", ".5", "5.", "0x1%", "1e-2%", " 0.1"}) {
        INFO(rate);
        const auto ran =
            run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2 --max-rate 'fenced=" + rate + "'");
        CHECK(ran.exit_code == 2);
        CHECK(ran.err ==
              "--max-rate fenced=" + rate + ": expected a rate from 0 to 1, or a percentage such as 0.01%\n");
    }
    const auto taken = run_locksim(
        "sweep scenarios/random-gc-pauses.json --seeds 2 --max-rate fenced=0.5 "
        "--max-rate idempotent=00.25%");
    CHECK(taken.exit_code != 2);  // gated, whatever the two runs show
    CHECK(taken.err.find("--max-rate") == std::string::npos);
}
