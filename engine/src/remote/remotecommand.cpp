#include "slicescope/remote/remotecommand.h"

#include "slicescope/remote/sharedconnection.h"
#include "slicescope/trace/trace.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace slicescope::remote {

namespace {

bool isHostChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
}

bool isUserChar(char c) {
    return isHostChar(c) || c == '+';
}

Error invalid(std::string_view text, const std::string& why) {
    return Error{Error::Code::InvalidArgument,
                 "--host '" + std::string(text) + "': " + why + " (expected [USER@]HOST[:PORT])"};
}

// The last line of text that holds anything.
std::string lastLine(const std::vector<std::string>& lines) {
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) {
        if (it->find_first_not_of(" \t\r") != std::string::npos) {
            return *it;
        }
    }
    return {};
}

bool anyContains(const std::vector<std::string>& lines, std::string_view needle) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string& line) {
        return line.find(needle) != std::string::npos;
    });
}

} // namespace

std::string SshTarget::text() const {
    std::string out = user.empty() ? host : user + "@" + host;
    if (host.find(':') != std::string::npos) {
        out = (user.empty() ? "" : user + "@") + "[" + host + "]";
    }
    if (port) {
        out += ":" + std::to_string(*port);
    }
    return out;
}

Result<SshTarget> parseSshTarget(std::string_view text) {
    SshTarget target;
    std::string_view rest = text;
    if (const auto at = rest.rfind('@'); at != std::string_view::npos) {
        target.user = std::string(rest.substr(0, at));
        rest.remove_prefix(at + 1);
        if (target.user.empty() || target.user.front() == '-' ||
            !std::all_of(target.user.begin(), target.user.end(), isUserChar)) {
            return tl::unexpected(invalid(text, "the user name may hold letters, digits and "
                                                ". _ - + and may not begin with '-'"));
        }
    }
    std::string_view port;
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string_view::npos) {
            return tl::unexpected(invalid(text, "an IPv6 address needs its closing ']'"));
        }
        target.host = std::string(rest.substr(1, close - 1));
        const bool v6 =
            !target.host.empty() && std::all_of(target.host.begin(), target.host.end(), [](char c) {
                return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
            });
        if (!v6) {
            return tl::unexpected(invalid(text, "only an IPv6 address goes in brackets"));
        }
        rest.remove_prefix(close + 1);
        if (!rest.empty() && rest.front() != ':') {
            return tl::unexpected(invalid(text, "only ':PORT' may follow ']'"));
        }
        port = rest.empty() ? rest : rest.substr(1);
        if (!rest.empty() && port.empty()) {
            return tl::unexpected(invalid(text, "the port is missing after ':'"));
        }
    } else {
        const auto colon = rest.find(':');
        target.host = std::string(rest.substr(0, colon));
        if (colon != std::string_view::npos) {
            port = rest.substr(colon + 1);
            if (port.empty()) {
                return tl::unexpected(invalid(text, "the port is missing after ':'"));
            }
        }
        if (target.host.empty()) {
            return tl::unexpected(invalid(text, "the host name is missing"));
        }
        if (target.host.front() == '-') {
            return tl::unexpected(invalid(text, "a host name may not begin with '-'"));
        }
        if (!std::all_of(target.host.begin(), target.host.end(), isHostChar)) {
            return tl::unexpected(
                invalid(text, "a host name may hold letters, digits and . _ - only"));
        }
    }
    if (!port.empty()) {
        unsigned value = 0;
        const bool digits = port.size() <= 5 && std::all_of(port.begin(), port.end(), [](char c) {
                                return std::isdigit(static_cast<unsigned char>(c)) != 0;
                            });
        for (char c : digits ? port : std::string_view{}) {
            value = value * 10 + unsigned(c - '0');
        }
        if (!digits || value < 1 || value > 65535) {
            return tl::unexpected(invalid(text, "the port must be a number from 1 to 65535"));
        }
        target.port = std::uint16_t(value);
    }
    return target;
}

std::string shellQuote(std::string_view word, Quoting quoting) {
    const bool plain = quoting == Quoting::WhenNeeded && !word.empty() &&
                       word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789@%_+=:,./-") == std::string_view::npos;
    if (plain) {
        return std::string(word);
    }
    std::string out = "'";
    for (const char c : word) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    out += '\'';
    return out;
}

std::string shellCommandLine(const std::vector<std::string>& words, Quoting quoting) {
    std::string out;
    for (const auto& word : words) {
        out += (out.empty() ? "" : " ") + shellQuote(word, quoting);
    }
    return out;
}

namespace {

// [-F FILE] [-l USER] [-p PORT] after the program's own words.
std::vector<std::string> programAndTarget(const SshOptions& options, const SshTarget& target) {
    std::vector<std::string> argv = options.program;
    if (!options.configFile.empty()) {
        argv.insert(argv.end(), {"-F", options.configFile});
    }
    if (!target.user.empty()) {
        argv.insert(argv.end(), {"-l", target.user});
    }
    if (target.port) {
        argv.insert(argv.end(), {"-p", std::to_string(*target.port)});
    }
    return argv;
}

// The words of text, split at spaces, tabs and newlines.
std::vector<std::string_view> wordsOf(std::string_view text) {
    std::vector<std::string_view> words;
    std::size_t at = 0;
    while (at < text.size()) {
        const auto begin = text.find_first_not_of(" \t\n", at);
        if (begin == std::string_view::npos) {
            break;
        }
        const auto end = std::min(text.find_first_of(" \t\n", begin), text.size());
        words.push_back(text.substr(begin, end - begin));
        at = end;
    }
    return words;
}

} // namespace

std::vector<std::string> sshProgramFromEnvironment(const char* value) {
    std::vector<std::string> words;
    for (const auto word : wordsOf(value != nullptr ? value : "")) {
        words.emplace_back(word);
    }
    if (words.empty()) {
        words.emplace_back("ssh");
    }
    return words;
}

std::vector<std::string> sshArgv(const SshOptions& options, const SshTarget& target,
                                 const std::string& remoteCommand) {
    std::vector<std::string> argv = programAndTarget(options, target);
    argv.insert(argv.begin() + std::ptrdiff_t(options.program.size()), {"-o", "BatchMode=yes"});
    if (!options.ciphers.empty()) {
        argv.insert(argv.end(), {"-o", "Ciphers=" + options.ciphers});
    }
    if (!options.controlPath.empty()) {
        argv.insert(argv.end(), {"-o", "ControlMaster=auto", "-o",
                                 "ControlPersist=" + std::to_string(kSharedConnectionIdleSeconds),
                                 "-o", "ControlPath=" + options.controlPath});
    }
    argv.insert(argv.end(), {"--", target.host, remoteCommand});
    return argv;
}

std::vector<std::string> sshConfigQueryArgv(const SshOptions& options, const SshTarget& target) {
    std::vector<std::string> argv = programAndTarget(options, target);
    argv.insert(argv.end(), {"-G", "--", target.host});
    return argv;
}

std::string preferredCiphers(std::string_view sshG, bool cpuHasAes) {
    if (!cpuHasAes) {
        return {};
    }
    // `ssh -G` prints one "keyword value" line each; the ciphers' line is "ciphers LIST".
    for (std::size_t at = 0; at < sshG.size();) {
        const auto end = std::min(sshG.find('\n', at), sshG.size());
        const auto words = wordsOf(sshG.substr(at, end - at));
        if (words.size() == 2 && words[0] == "ciphers") {
            return words[1] == kOpenSshDefaultCiphers
                       ? "aes128-gcm@openssh.com,aes256-gcm@openssh.com,"
                         "chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr"
                       : "";
        }
        at = end + 1;
    }
    return {}; // not OpenSSH's -G, or no ciphers line: leave ssh's choice
}

bool cpuHasAesInstructions(std::string_view cpuinfo) {
    for (std::size_t at = 0; at < cpuinfo.size();) {
        const auto end = std::min(cpuinfo.find('\n', at), cpuinfo.size());
        const std::string_view line = cpuinfo.substr(at, end - at);
        const auto colon = line.find(':');
        const auto key = wordsOf(line.substr(0, std::min(colon, line.size())));
        if (colon != std::string_view::npos && key.size() == 1 &&
            (key[0] == "flags" || key[0] == "Features")) {
            const auto values = wordsOf(line.substr(colon + 1));
            return std::find(values.begin(), values.end(), "aes") != values.end();
        }
        at = end + 1;
    }
    return false;
}

std::string describeSshFailure(const SshTarget& target, int exitStatus,
                               const std::vector<std::string>& stderrTail) {
    if (exitStatus != 255) {
        return {};
    }
    const std::string host = target.text();
    std::string words;
    if (anyContains(stderrTail, "Host key verification failed") ||
        anyContains(stderrTail, "No ED25519 host key is known") ||
        anyContains(stderrTail, "host key is known")) {
        words = "the host key of " + host + " is not known here: connect once with 'ssh " + host +
                "', check the fingerprint it shows, and accept it";
    } else if (anyContains(stderrTail, "REMOTE HOST IDENTIFICATION HAS CHANGED")) {
        words = "the host key of " + host +
                " has changed since it was accepted: ask its administrator before going on";
    } else if (anyContains(stderrTail, "Permission denied")) {
        words = "authentication to " + host +
                " failed: no key that the server accepts (load it with ssh-add, or name it with "
                "IdentityFile in ~/.ssh/config; passwords are never asked for)";
    } else if (anyContains(stderrTail, "Could not resolve hostname")) {
        words = "the host name " + target.host + " is not known (not in DNS nor ~/.ssh/config)";
    } else if (anyContains(stderrTail, "Connection refused")) {
        words = "nothing accepts SSH connections on " + host + " (connection refused)";
    } else if (anyContains(stderrTail, "timed out")) {
        words = host + " did not answer (connection timed out)";
    } else if (anyContains(stderrTail, "closed by") || anyContains(stderrTail, "Broken pipe") ||
               anyContains(stderrTail, "Connection reset")) {
        words = "the connection to " + host + " was lost";
    } else {
        words = "ssh could not run the command on " + host;
    }
    const std::string last = lastLine(stderrTail);
    // ssh's own lines often begin "ssh: " already.
    const bool named = last.rfind("ssh: ", 0) == 0;
    return last.empty() ? words : words + " (" + (named ? "" : "ssh: ") + last + ")";
}

ProgramVersion thisVersion() {
    return ProgramVersion{"slicescope-cli", "0.1.0", trace::kFormatVersion};
}

std::string toJson(const ProgramVersion& version) {
    nlohmann::json out;
    out["program"] = version.program;
    out["version"] = version.version;
    out["trace_format"] = version.traceFormat;
    out["trace_format_name"] = std::string(trace::kFormatName);
    return out.dump();
}

Result<ProgramVersion> parseVersionJson(std::string_view text) {
    auto json = nlohmann::json::parse(text, nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("trace_format") ||
        !json["trace_format"].is_number_integer() || !json.contains("version") ||
        !json["version"].is_string()) {
        return fail(Error::Code::Parse, "not a slicescope-cli version (--version --json)");
    }
    ProgramVersion version;
    version.program = json.value("program", std::string("slicescope-cli"));
    version.version = json["version"].get<std::string>();
    version.traceFormat = json["trace_format"].get<int>();
    return version;
}

Status checkCompatible(const ProgramVersion& local, const ProgramVersion& remote,
                       const std::string& where) {
    if (local.traceFormat == remote.traceFormat) {
        return {};
    }
    return fail(Error::Code::Unsupported,
                "version mismatch: this " + local.program + " " + local.version +
                    " writes trace format " + std::to_string(local.traceFormat) + ", but " +
                    remote.program + " " + remote.version + " on " + where +
                    " writes trace format " + std::to_string(remote.traceFormat) +
                    "; install the same version on both machines");
}

std::string remoteScript() {
    // POSIX sh only: dash, bash --posix and busybox ash run it alike. Every expansion is quoted.
    // A background job's stdin is /dev/null unless redirected: the watcher gets the session's
    // stdin through fd 3. With a trace, the CLI writes it into a pipe (/dev/fd/5) read by tee,
    // which streams it on stdout while the CLI writes and keeps a copy in the directory (what a
    // dropped connection leaves there); the CLI's own stdout comes back on stderr, each line
    // tagged "NONCE out", so the trace's bytes are all stdout carries until the end line.
    // Few programs are started (each costs milliseconds on some hosts): the version line is made
    // one line by the shell itself, the status read by `read`; the directory is removed in the
    // background after the end line, so the session ends without waiting for it.
    return R"SH(n=$1 cli=$2 mode=$3
shift 3
v=$("$cli" --version --json 2>&1)
r=$?
oneline() { IFS='
'; set -f; set -- $1; IFS=' '; printf '%s' "$*"; unset IFS; set +f; }
printf '%s version %s ' "$n" "$r"
oneline "$v"
echo
IFS= read -r go || exit 0
[ "$go" = go ] || exit 0
exec 3<&0
watch() {
  (while IFS= read -r _; do :; done; kill -TERM "$1"; sleep 1; kill -KILL "$1") <&3 3<&- >/dev/null 2>&1 &
  w=$!
}
if [ "$mode" != trace ]; then
  "$cli" "$@" </dev/null 3<&- &
  p=$!
  watch "$p"
  exec 3<&-
  wait "$p"
  r=$?
  kill "$w" 2>/dev/null
  printf '\n%s end %s -\n' "$n" "$r"
  exit 0
fi
d=$(mktemp -d "${TMPDIR:-/tmp}/slicescope-remote.XXXXXX") || exit 125
mkfifo "$d/out" || exit 125
for a do
  shift
  [ "$a" = @slicescope-output@ ] && a=/dev/fd/5
  set -- "$@" "$a"
done
printf '%s dir %s\n' "$n" "$d"
(trap '' PIPE; while IFS= read -r l || [ -n "$l" ]; do printf '%s out %s\n' "$n" "$l"; done) <"$d/out" >&2 2>/dev/null &
o=$!
{
  "$cli" "$@" 5>&1 >"$d/out" </dev/null 3<&- &
  p=$!
  watch "$p"
  exec 3<&-
  wait "$p"
  echo $? >"$d/status"
  kill "$w" 2>/dev/null
} | (trap '' PIPE; exec tee "$d/trace.json")
wait "$o"
r=
{ read -r r <"$d/status"; } 2>/dev/null
s=-
[ -s "$d/trace.json" ] && s=$(wc -c <"$d/trace.json")
printf '\n%s end %s %s\n' "$n" "${r:-1}" $s || exit 1
rm -rf "$d" </dev/null >/dev/null 2>&1 &
)SH";
}

std::string remoteCommandLine(const std::string& nonce, const std::string& cli, bool withTrace,
                              const std::vector<std::string>& arguments) {
    std::vector<std::string> words{
        "sh", "-c", remoteScript(), "slicescope-remote", nonce, cli, withTrace ? "trace" : "none"};
    words.insert(words.end(), arguments.begin(), arguments.end());
    return "exec " + shellCommandLine(words);
}

} // namespace slicescope::remote
