// remote/remotecommand.h and remote/sshconfig.h: the host check, the quoting every remote word
// goes through (proved by a real /bin/sh), the ssh command line, ssh's failures in plain words,
// the version handshake and the Host lines of an ssh configuration.
#include "slicescope/remote/remotecommand.h"
#include "slicescope/remote/sshconfig.h"
#include "slicescope/trace/trace.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace slicescope;
using namespace slicescope::remote;

namespace {

// The words /bin/sh reads back from a command line, through printf '%s\0'.
std::vector<std::string> wordsThroughShell(const std::vector<std::string>& words) {
    const std::string command = "printf '%s\\0' " + shellCommandLine(words);
    FILE* pipe = ::popen(("/bin/sh -c " + shellQuote(command)).c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    std::string out;
    std::array<char, 4096> buffer{};
    for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0;) {
        out.append(buffer.data(), n);
    }
    ::pclose(pipe);
    std::vector<std::string> back;
    std::size_t start = 0;
    for (std::size_t nul; (nul = out.find('\0', start)) != std::string::npos; start = nul + 1) {
        back.push_back(out.substr(start, nul - start));
    }
    return back;
}

} // namespace

TEST(SshTarget, AcceptsUserHostAndPort) {
    struct Case {
        const char* text;
        const char* user;
        const char* host;
        int port; // 0: none
    };
    for (const Case& c :
         {Case{"gpu-box", "", "gpu-box", 0}, Case{"me@gpu.lab.org", "me", "gpu.lab.org", 0},
          Case{"me@10.0.0.7:2222", "me", "10.0.0.7", 2222},
          Case{"lab_alias:22", "", "lab_alias", 22}, Case{"[::1]:2200", "", "::1", 2200},
          Case{"a.b@[fe80::1]", "a.b", "fe80::1", 0}}) {
        auto target = parseSshTarget(c.text);
        ASSERT_TRUE(target) << c.text << ": " << target.error().message;
        EXPECT_EQ(target->user, c.user) << c.text;
        EXPECT_EQ(target->host, c.host) << c.text;
        EXPECT_EQ(target->port.value_or(0), c.port) << c.text;
        EXPECT_EQ(target->text(), c.text);
    }
}

TEST(SshTarget, RefusesWhatSshWouldReadAsAnOptionOrAShellWouldExpand) {
    for (const char* text :
         {"", "-oProxyCommand=touch /tmp/x", "-p", "me@-host", "-me@host", "host:0", "host:65536",
          "host:", "host:22x", "ho st", "host;id", "$(id)", "host`id`", "a@", "@host", "[::1",
          "[nothex]:22", "host\nother"}) {
        auto target = parseSshTarget(text);
        EXPECT_FALSE(target) << "accepted: " << text;
        if (!target) {
            EXPECT_EQ(target.error().code, Error::Code::InvalidArgument);
            EXPECT_NE(target.error().message.find("[USER@]HOST[:PORT]"), std::string::npos);
        }
    }
}

TEST(ShellQuote, EveryWordReachesTheShellUnchanged) {
    const std::vector<std::string> words{
        "plain",       "with space", "it's",      "'",     "''",        "a;b",
        "$(id)",       "`id`",       "${HOME}",   "a\nb",  "*",         "\\",
        "\"double\"",  "",           "--flag=x",  "-",     "tab\there", "!bang",
        "a'b'c\"d\"$", "~/not-home", "a|b&c>d<e", "#hash", "x=1",       "\t\n"};
    EXPECT_EQ(wordsThroughShell(words), words);
}

TEST(ShellQuote, ACommandSubstitutionNeverRuns) {
    const auto marker =
        std::filesystem::temp_directory_path() / ("slicescope-pwned-" + std::to_string(::getpid()));
    std::filesystem::remove(marker);
    const std::string m = marker.string();
    const std::vector<std::string> words{"$(touch " + m + ")", "`touch " + m + "`",
                                         "'; touch " + m + "; '", "\n touch " + m,
                                         "\"$(touch " + m + ")\""};
    EXPECT_EQ(wordsThroughShell(words), words);
    EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST(ShellQuote, WhenNeededLeavesPlainWordsBare) {
    EXPECT_EQ(shellQuote("run", Quoting::WhenNeeded), "run");
    EXPECT_EQ(shellQuote("--shape=100x4000x5", Quoting::WhenNeeded), "--shape=100x4000x5");
    EXPECT_EQ(shellQuote("run", Quoting::Always), "'run'");
    EXPECT_EQ(shellQuote("it's", Quoting::WhenNeeded), "'it'\\''s'");
    EXPECT_EQ(shellQuote("", Quoting::WhenNeeded), "''");
}

TEST(SshArgv, HostAfterDoubleDashAndBatchModeAlways) {
    auto target = parseSshTarget("me@gpu:2222");
    ASSERT_TRUE(target);
    SshOptions options;
    options.configFile = "/tmp/my config";
    const auto argv = sshArgv(options, *target, "echo hi");
    const std::vector<std::string> expected{
        "ssh",  "-o", "BatchMode=yes", "-F",     "/tmp/my config", "-l", "me", "-p",
        "2222", "--", "gpu",           "echo hi"};
    EXPECT_EQ(argv, expected);
}

TEST(SshArgv, ProgramFromTheEnvironment) {
    EXPECT_EQ(sshProgramFromEnvironment(nullptr), std::vector<std::string>{"ssh"});
    EXPECT_EQ(sshProgramFromEnvironment("  "), std::vector<std::string>{"ssh"});
    EXPECT_EQ(sshProgramFromEnvironment("ssh  -F /tmp/c\t-v"),
              (std::vector<std::string>{"ssh", "-F", "/tmp/c", "-v"}));
}

TEST(SshArgv, CiphersOnlyWhenAsked) {
    SshTarget target;
    target.host = "gpu-box";
    SshOptions options;
    const auto plain = sshArgv(options, target, "true");
    EXPECT_EQ(std::count(plain.begin(), plain.end(), "-o"), 1); // BatchMode only
    options.ciphers = "aes128-gcm@openssh.com,chacha20-poly1305@openssh.com";
    const auto argv = sshArgv(options, target, "true");
    const auto at = std::find(argv.begin(), argv.end(),
                              "Ciphers=aes128-gcm@openssh.com,chacha20-poly1305@openssh.com");
    ASSERT_NE(at, argv.end());
    EXPECT_EQ(*(at - 1), "-o");
    EXPECT_LT(at, std::find(argv.begin(), argv.end(), "--")); // an option, before the host
}

TEST(SshArgv, ConfigQueryAsksForTheSameHostWithoutConnecting) {
    SshOptions options;
    options.program = {"ssh", "-F", "/tmp/cfg"};
    options.configFile = "/home/me/other";
    const SshTarget target = *parseSshTarget("ana@gpu-box:2222");
    EXPECT_EQ(sshConfigQueryArgv(options, target),
              (std::vector<std::string>{"ssh", "-F", "/tmp/cfg", "-F", "/home/me/other", "-l",
                                        "ana", "-p", "2222", "-G", "--", "gpu-box"}));
}

TEST(PreferredCiphers, AesGcmFirstOnlyWhereNobodyChoseAndTheCpuHasAes) {
    const std::string unconfigured = "user ana\nhostname gpu-box\nciphers " +
                                     std::string(kOpenSshDefaultCiphers) + "\nport 22\n";
    const std::string chosen =
        "hostname gpu-box\nciphers aes256-ctr,chacha20-poly1305@openssh.com\n";
    const std::string ours = preferredCiphers(unconfigured, true);
    EXPECT_EQ(ours.rfind("aes128-gcm@openssh.com,", 0), 0u) << ours;
    // The same set as OpenSSH's default, reordered: a server that takes the default takes these.
    auto sorted = [](std::string list) {
        std::vector<std::string> names;
        std::stringstream in(list);
        for (std::string name; std::getline(in, name, ',');) {
            names.push_back(name);
        }
        std::sort(names.begin(), names.end());
        return names;
    };
    EXPECT_EQ(sorted(ours), sorted(std::string(kOpenSshDefaultCiphers)));
    EXPECT_EQ(preferredCiphers(unconfigured, false), "");
    EXPECT_EQ(preferredCiphers(chosen, true), "");
    EXPECT_EQ(preferredCiphers("", true), "");                           // -G printed nothing
    EXPECT_EQ(preferredCiphers("usage: ssh [-46AaCfG...]\n", true), ""); // not OpenSSH's -G
}

TEST(PreferredCiphers, AesInstructionsFromCpuinfo) {
    EXPECT_TRUE(cpuHasAesInstructions("processor\t: 0\nflags\t\t: fpu vme sse2 aes avx2\n"));
    EXPECT_TRUE(cpuHasAesInstructions("processor\t: 0\nFeatures\t: fp asimd evtstrm aes pmull\n"));
    EXPECT_FALSE(cpuHasAesInstructions("processor\t: 0\nflags\t\t: fpu vme sse2 avx2\n"));
    EXPECT_FALSE(cpuHasAesInstructions("flags\t\t: fpu vaes_like\n")); // a whole word only
    EXPECT_FALSE(cpuHasAesInstructions("model name\t: aes 9000\n"));   // not the flags line
    EXPECT_FALSE(cpuHasAesInstructions(""));
}

TEST(RemoteCommandLine, ArgumentsReachTheScriptUnchanged) {
    // The script's own words, run by a real sh with a fake CLI that prints its arguments: what
    // the remote end receives.
    const std::vector<std::string> args{"run", "--shape=10x20x3; touch /tmp/x", "--env=A=$(id)",
                                        "it's\nnew"};
    const std::string line = remoteCommandLine("N", "printf", false, args);
    EXPECT_EQ(line.rfind("exec 'sh' '-c' ", 0), 0u);
    // Everything after the script is quoted: each argument appears exactly as shellQuote wrote it.
    for (const auto& a : args) {
        EXPECT_NE(line.find(shellQuote(a)), std::string::npos) << a;
    }
}

TEST(SshFailure, PlainWordsWithSshsOwnLine) {
    auto target = parseSshTarget("gpu");
    ASSERT_TRUE(target);
    struct Case {
        const char* line;
        const char* words;
    };
    for (const Case& c :
         {Case{"Host key verification failed.", "host key of gpu is not known"},
          Case{"me@gpu: Permission denied (publickey).", "authentication to gpu failed"},
          Case{"ssh: Could not resolve hostname gpu: Name or service not known",
               "host name gpu is not known"},
          Case{"ssh: connect to host gpu port 22: Connection refused", "connection refused"},
          Case{"Connection to gpu closed by remote host.", "connection to gpu was lost"}}) {
        const std::string text = describeSshFailure(*target, 255, {"", c.line});
        EXPECT_NE(text.find(c.words), std::string::npos) << text;
        // ssh's own line once, named "ssh:" once.
        const std::string line = c.line;
        const std::string quoted =
            line.rfind("ssh: ", 0) == 0 ? "(" + line + ")" : "(ssh: " + line + ")";
        EXPECT_NE(text.find(quoted), std::string::npos) << text;
        EXPECT_EQ(text.find("ssh: ssh:"), std::string::npos) << text;
    }
    EXPECT_EQ(describeSshFailure(*target, 1, {"Permission denied"}), "");
}

TEST(VersionHandshake, RoundTripAndMismatchNamesBothVersions) {
    const ProgramVersion local = thisVersion();
    EXPECT_EQ(local.traceFormat, trace::kFormatVersion);
    auto back = parseVersionJson(toJson(local));
    ASSERT_TRUE(back);
    EXPECT_EQ(back->version, local.version);
    EXPECT_EQ(back->traceFormat, local.traceFormat);
    EXPECT_TRUE(checkCompatible(local, *back, "gpu"));

    ProgramVersion other{"slicescope-cli", "9.9.9", local.traceFormat + 1};
    auto refused = checkCompatible(local, other, "gpu");
    ASSERT_FALSE(refused);
    const std::string& m = refused.error().message;
    EXPECT_NE(m.find("version mismatch"), std::string::npos) << m;
    EXPECT_NE(m.find(local.version), std::string::npos) << m;
    EXPECT_NE(m.find("9.9.9"), std::string::npos) << m;
    EXPECT_NE(m.find("trace format " + std::to_string(local.traceFormat)), std::string::npos);
    EXPECT_NE(m.find("trace format " + std::to_string(local.traceFormat + 1)), std::string::npos);
    EXPECT_FALSE(parseVersionJson("slicescope-cli 0.1.0"));
    EXPECT_FALSE(parseVersionJson("{\"version\":\"1\"}"));
}

TEST(SshConfig, HostLinesWithoutPatterns) {
    const char* config = "# a comment\n"
                         "Host gpu-box lab\n"
                         "    HostName 10.0.0.7\n"
                         "host=cluster  # login node\n"
                         "HOST *\n"
                         "  User me\n"
                         "Host *.lab.org !bad node? \"quoted\"\n"
                         "Match host gpu-box\n"
                         "Host lab\n"
                         "\tHost\tindented\r\n"
                         "HostName not-a-host-line\n";
    EXPECT_EQ(sshConfigHosts(config),
              (std::vector<std::string>{"gpu-box", "lab", "cluster", "quoted", "indented"}));
    EXPECT_TRUE(sshConfigHosts("").empty());
}
