// slicescope-bench-remote: what --host costs (docs/performance.md, "Remote runs over SSH").
// Starts the test OpenSSH server on 127.0.0.1 (tests/remote/sshd-fixture.sh), then times the same
// slicescope-cli commands here and through `--host` to it:
//   1. the seed shape, every GPU strategy modelled on the H200 preset: median of 7 wall times each;
//   2. a trace of about a million events (a modelled run with many repetitions and chunks) brought
//      back over the connection: wall time and the local process's peak resident memory, against
//      the same command writing locally.
// Usage: slicescope-bench-remote [CLI] [REPETITIONS [LARGE_ROUNDS]] (large rounds: at most 3 by
// default, each about 3 s on the GPU machine)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

struct Outcome {
    int status = -1;
    double wallS = 0;
    long peakKiB = 0; // the child's own peak resident set (ru_maxrss)
};

// Runs argv (stdout and stderr to /dev/null) and measures it.
Outcome runMeasured(const std::vector<std::string>& argv) {
    std::vector<char*> args;
    for (const auto& a : argv) {
        args.push_back(const_cast<char*>(a.c_str()));
    }
    args.push_back(nullptr);
    std::fflush(stdout); // else the child's copy of the buffer is written again
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) {
        std::freopen("/dev/null", "w", stdout);
        if (std::getenv("BENCH_REMOTE_STDERR") == nullptr) {
            std::freopen("/dev/null", "w", stderr);
        }
        ::execvp(args[0], args.data()); // ssh through PATH
        ::_exit(127);
    }
    Outcome out;
    int status = 0;
    rusage usage{};
    ::wait4(pid, &status, 0, &usage);
    out.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    out.peakKiB = usage.ru_maxrss;
    return out;
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values[values.size() / 2];
}

std::size_t countActivities(const std::filesystem::path& trace) {
    std::ifstream in(trace);
    std::size_t n = 0;
    const std::string key = "\"start_ns\"";
    for (std::string text; std::getline(in, text);) {
        for (std::size_t at = 0; (at = text.find(key, at)) != std::string::npos; at += key.size()) {
            ++n;
        }
    }
    return n;
}

} // namespace

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    const std::string cli = fs::absolute(argc > 1 ? argv[1] : SLICESCOPE_CLI_PATH).string();
    const int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 7;
    const fs::path work =
        fs::temp_directory_path() / ("slicescope-bench-remote-" + std::to_string(::getpid()));
    fs::create_directories(work);
    const std::string fixture = SLICESCOPE_SOURCE_DIR "/tests/remote/sshd-fixture.sh";
    // startServer(dir, quiet): the test sshd; quiet: the account's shell start-up files hidden
    // (SSHD_FIXTURE_QUIET_SHELL, root only), as on a host whose login shell does nothing slow.
    auto startServer = [&](const std::string& dir, bool quiet) {
        const std::string env = quiet ? "SSHD_FIXTURE_QUIET_SHELL=1 " : "";
        return std::system((env + "sh '" + fixture + "' start '" + dir + "' >/dev/null").c_str()) ==
               0;
    };
    auto stopServer = [&](const std::string& dir) {
        std::system(("sh '" + fixture + "' stop '" + dir + "'").c_str());
    };
    const std::string sshd = (work / "sshd").string();
    if (!startServer(sshd, false)) {
        std::fprintf(stderr, "could not start the test sshd (apt-get install openssh-server)\n");
        return 1;
    }
    const std::vector<std::string> remote{"--host", "slicescope-test", "--remote-cli", cli};
    auto command = [&](std::vector<std::string> args, const fs::path& out, bool viaSsh) {
        std::vector<std::string> words{cli};
        words.insert(words.end(), args.begin(), args.end());
        words.insert(words.end(), {"-q", "-o", out.string()});
        if (viaSsh) {
            words.insert(words.end(), remote.begin(), remote.end());
        }
        return words;
    };

    std::printf("slicescope-bench-remote: %s through ssh to 127.0.0.1 (OpenSSH test server)\n",
                cli.c_str());
    // Each command its own connection, as the first command to a host has, unless sharing is
    // turned on below; the kept connection is SliceScope's own (remote/sharedconnection.h), its
    // socket in RUNTIME/slicescope-ssh (a short path: a socket's path has a limit).
    ::setenv("SLICESCOPE_SSH_SHARED", "0", 1);
    char runtimePattern[] = "/tmp/ssb.XXXXXX";
    if (::mkdtemp(runtimePattern) == nullptr) {
        std::perror("mkdtemp");
        return 1;
    }
    const fs::path runtime = runtimePattern;
    ::setenv("XDG_RUNTIME_DIR", runtime.c_str(), 1);
    const auto share = [&](const std::string& dir, bool on) {
        if (on) {
            ::unsetenv("SLICESCOPE_SSH_SHARED");
            return;
        }
        std::error_code ignored;
        for (const auto& socket : fs::directory_iterator(runtime / "slicescope-ssh", ignored)) {
            std::system(("ssh -F " + dir + "/ssh_config -o ControlPath=" + socket.path().string() +
                         " -O exit slicescope-test 2>/dev/null")
                            .c_str());
        }
        ::setenv("SLICESCOPE_SSH_SHARED", "0", 1);
    };
    const std::vector<std::string> seed{"model", "--shape",  "100x4000x5", "--strategy",
                                        "all",   "--device", "h200"};
    // The seed command here and through the server in `dir`: medians of the local command, the
    // --host command, a bare `ssh host true`, and --host through one kept connection.
    auto measureSeed = [&](const std::string& dir) -> std::vector<double> {
        const std::string ssh = "ssh -F " + dir + "/ssh_config";
        ::setenv("SLICESCOPE_SSH", ssh.c_str(), 1);
        std::vector<double> local, viaSsh, bare, shared;
        for (int i = 0; i < repetitions; ++i) {
            const Outcome l = runMeasured(command(seed, work / "seed-local.json", false));
            const Outcome r = runMeasured(command(seed, work / "seed-remote.json", true));
            if (l.status != 0 || r.status != 0) {
                std::fprintf(stderr, "a seed command failed (local %d, remote %d)\n", l.status,
                             r.status);
                return {};
            }
            local.push_back(l.wallS);
            viaSsh.push_back(r.wallS);
            bare.push_back(runMeasured({"ssh", "-F", dir + "/ssh_config", "-o", "BatchMode=yes",
                                        "slicescope-test", "true"})
                               .wallS);
        }
        // The commands after the first: through the connection the first one left open.
        share(dir, true);
        runMeasured(command(seed, work / "seed-remote.json", true)); // opens the kept connection
        for (int i = 0; i < repetitions; ++i) {
            const Outcome r = runMeasured(command(seed, work / "seed-remote.json", true));
            if (r.status != 0) {
                std::fprintf(stderr, "a seed command through the kept connection failed (%d)\n",
                             r.status);
                return {};
            }
            shared.push_back(r.wallS);
        }
        share(dir, false);
        return {median(local), median(viaSsh), median(bare), median(shared)};
    };
    auto printSeed = [&](const char* title, const std::vector<double>& m) {
        std::printf("seed shape, all GPU strategies modelled (median of %d), %s:\n", repetitions,
                    title);
        std::printf("  local                          %.3f s\n", m[0]);
        std::printf("  --host localhost, first command %.3f s (%+.3f s; a connection of its own)\n",
                    m[1], m[1] - m[0]);
        std::printf("  of which ssh's own connection   %.3f s ('ssh host true')\n", m[2]);
        std::printf("  --host, a later command         %.3f s (%+.3f s; the kept connection)\n",
                    m[3], m[3] - m[0]);
    };
    const auto seedFigures = measureSeed(sshd);
    if (seedFigures.empty()) {
        return 1;
    }
    printSeed("this account's login shell", seedFigures);
    // The same with the account's shell start-up files hidden from sshd's sessions.
    const std::string quiet = (work / "sshd-quiet").string();
    const bool haveQuiet = ::geteuid() == 0 && startServer(quiet, true);
    if (haveQuiet) {
        const auto quietFigures = measureSeed(quiet);
        if (quietFigures.empty()) {
            return 1;
        }
        printSeed("a login shell that starts at once (~/.bashrc, ~/.profile hidden)", quietFigures);
    } else {
        std::printf("(not root, or unshare failed: no figures with a quiet login shell)\n");
    }

    // About a million events: 8 GPU strategies x 2,600 repetitions x 16 chunks x 3 activities
    // (and a few more a run).
    const std::vector<std::string> large{"model", "--shape",  "1600x4000x5", "--strategy",
                                         "all",   "--device", "h200",        "--repeat",
                                         "2600",  "--chunks", "16"};
    const int largeRepetitions =
        argc > 3 ? std::max(1, std::atoi(argv[3])) : std::max(1, std::min(repetitions, 3));
    // Each round runs the local command, the first --host command (a connection of its own) and a
    // later one (the kept connection) back to back, so a ratio compares commands that met the same
    // machine: on the GPU machine the local write alone moved 0.64-0.96 s between two rounds.
    auto measureLarge = [&](const std::string& dir, const char* title) {
        ::setenv("SLICESCOPE_SSH", ("ssh -F " + dir + "/ssh_config").c_str(), 1);
        std::vector<double> localLarge, remoteLarge, kept, firstRatio, keptRatio;
        long localPeak = 0, remotePeak = 0;
        for (int i = 0; i < largeRepetitions; ++i) {
            const Outcome l = runMeasured(command(large, work / "large-local.json", false));
            const Outcome r = runMeasured(command(large, work / "large-remote.json", true));
            share(dir, true);
            runMeasured(command(seed, work / "seed-remote.json", true)); // opens the connection
            const Outcome k = runMeasured(command(large, work / "large-remote.json", true));
            share(dir, false);
            if (l.status != 0 || r.status != 0 || k.status != 0) {
                std::fprintf(stderr, "a large command failed (local %d, remote %d, kept %d)\n",
                             l.status, r.status, k.status);
                return false;
            }
            localLarge.push_back(l.wallS);
            remoteLarge.push_back(r.wallS);
            kept.push_back(k.wallS);
            firstRatio.push_back(r.wallS / l.wallS);
            keptRatio.push_back(k.wallS / l.wallS);
            localPeak = std::max(localPeak, l.peakKiB);
            remotePeak = std::max(remotePeak, r.peakKiB);
        }
        // The bytes alone through ssh: `cat` of the local trace over a new connection.
        std::vector<double> raw;
        for (int i = 0; i < largeRepetitions; ++i) {
            const std::string cat = "ssh -F '" + dir +
                                    "/ssh_config' -o BatchMode=yes slicescope-test cat '" +
                                    (work / "large-local.json").string() + "' >/dev/null";
            const auto start = std::chrono::steady_clock::now();
            if (std::system(cat.c_str()) != 0) {
                std::fprintf(stderr, "ssh cat failed\n");
                return false;
            }
            raw.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        const auto events = countActivities(work / "large-local.json");
        const bool same =
            fs::file_size(work / "large-local.json") == fs::file_size(work / "large-remote.json");
        std::printf("a %zu-event trace (%.1f MiB; %s size both ways), median of %d rounds, %s:\n",
                    events, double(fs::file_size(work / "large-local.json")) / (1 << 20),
                    same ? "the same" : "NOT the same", largeRepetitions, title);
        std::printf("  local: written in %.3f s (%.3f-%.3f), peak resident %.1f MiB\n",
                    median(localLarge), *std::min_element(localLarge.begin(), localLarge.end()),
                    *std::max_element(localLarge.begin(), localLarge.end()),
                    double(localPeak) / 1024);
        std::printf("  --host localhost, first command: brought back and written in %.3f s; "
                    "median of the rounds' ratios %.2fx (%.2f-%.2f); local process peak resident "
                    "%.1f MiB (%.2fx)\n",
                    median(remoteLarge), median(firstRatio),
                    *std::min_element(firstRatio.begin(), firstRatio.end()),
                    *std::max_element(firstRatio.begin(), firstRatio.end()),
                    double(remotePeak) / 1024, double(remotePeak) / double(localPeak));
        std::printf("  --host, a later command (the kept connection): %.3f s; median of the "
                    "rounds' ratios %.2fx (%.2f-%.2f)\n",
                    median(kept), median(keptRatio),
                    *std::min_element(keptRatio.begin(), keptRatio.end()),
                    *std::max_element(keptRatio.begin(), keptRatio.end()));
        std::printf("  the bytes alone, 'ssh host cat TRACE': %.3f s\n", median(raw));
        return true;
    };
    bool ok = measureLarge(sshd, "this account's login shell");
    if (ok && haveQuiet) {
        ok = measureLarge(quiet, "a login shell that starts at once");
    }
    stopServer(sshd);
    if (haveQuiet) {
        stopServer(quiet);
    }
    fs::remove_all(work);
    fs::remove_all(runtime);
    return ok ? 0 : 1;
}
