#pragma once

// Running slicescope-cli on another machine through the system's OpenSSH client (docs/remote.md):
// the one place that checks a host, quotes a word for the remote shell and builds the ssh command
// line. Pure functions of their arguments: no process is started here (remote/sshsession.h starts
// ssh; the CLI's --host drives both).
#include "slicescope/core/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::remote {

// Where a remote command runs: [USER@]HOST[:PORT]. The host may be an alias of ~/.ssh/config.
struct SshTarget {
    std::string user; // empty: ssh's choice (the config's User, else the local user name)
    std::string host;
    std::optional<std::uint16_t> port; // absent: ssh's choice (the config's Port, else 22)
    std::string text() const;          // as the user wrote it
};

// Parses and checks [USER@]HOST[:PORT]. Refused (InvalidArgument): an empty host, a host or user
// that begins with '-' (ssh would read it as an option), characters outside letters, digits and
// ". _ -" (a host; "[v6::addr]" is accepted in brackets) or ". _ - +" (a user), a port outside
// 1..65535.
Result<SshTarget> parseSshTarget(std::string_view text);

// How shellQuote writes a word.
enum class Quoting {
    Always,    // every word in single quotes: what a remote shell receives
    WhenNeeded // words of plain characters bare, the rest quoted: for people to read
};

// One word for a POSIX shell (sh, bash, dash, zsh, ksh): in single quotes, each single quote
// written as '\'' . Nothing inside single quotes is special to such a shell: spaces, ";", "$()",
// backquotes, newlines and globs all reach the program as they are. The only quoting function of
// SliceScope (record's command text uses it too).
std::string shellQuote(std::string_view word, Quoting quoting = Quoting::Always);
// The words quoted and joined by spaces: a command line for a POSIX shell.
std::string shellCommandLine(const std::vector<std::string>& words,
                             Quoting quoting = Quoting::Always);

// How ssh is started. The program and its first arguments come from SLICESCOPE_SSH when set
// (split at spaces: e.g. "ssh -F /tmp/test/ssh_config", for tests and for users with their own
// wrapper), else "ssh".
struct SshOptions {
    std::vector<std::string> program{"ssh"};
    std::string configFile; // --ssh-config: ssh -F FILE
    std::string ciphers;    // -o Ciphers=LIST when not empty (preferredCiphers)
    // When not empty: ssh shares one connection a host through this socket (ControlMaster=auto,
    // ControlPersist: remote/sharedconnection.h).
    std::string controlPath;
};
std::vector<std::string> sshProgramFromEnvironment(const char* value);

// The command line that asks ssh for the configuration it would use for target, without
// connecting: PROGRAM [-F FILE] [-l USER] [-p PORT] -G -- HOST.
std::vector<std::string> sshConfigQueryArgv(const SshOptions& options, const SshTarget& target);

// OpenSSH's default ciphers (since 6.9) as `ssh -G` prints them where no configuration names any.
inline constexpr std::string_view kOpenSshDefaultCiphers =
    "chacha20-poly1305@openssh.com,aes128-ctr,aes192-ctr,aes256-ctr,aes128-gcm@openssh.com,"
    "aes256-gcm@openssh.com";
// The ciphers to ask for when a trace of hundreds of MiB comes back: OpenSSH's default set with
// AES-GCM first, where the CPU has AES instructions (there aes128-gcm moves a trace about twice as
// fast as chacha20-poly1305, OpenSSH's first choice: docs/performance.md, "Remote runs over SSH").
// The same ciphers, so a server that accepts ssh's default accepts these. Empty, leaving ssh's
// choice alone, when sshG (what `ssh -G` printed) names other ciphers than the default (the
// user's ~/.ssh/config or the system's policy chose) or when the CPU has no AES instructions.
std::string preferredCiphers(std::string_view sshG, bool cpuHasAes);
// Whether /proc/cpuinfo's text names the AES instructions ("aes" in x86's flags, arm64's
// Features).
bool cpuHasAesInstructions(std::string_view cpuinfo);

// The ssh command line that runs remoteCommand (a command line for the remote shell) on target:
// PROGRAM -o BatchMode=yes [-F FILE] [-l USER] [-p PORT] [-o Ciphers=...] [-o ControlMaster=auto
// -o ControlPersist=SECONDS -o ControlPath=PATH] -- HOST REMOTECOMMAND. BatchMode: never a
// password or passphrase prompt; "--": the host can never be read as an option.
std::vector<std::string> sshArgv(const SshOptions& options, const SshTarget& target,
                                 const std::string& remoteCommand);

// A failed ssh in plain words, from its exit status and the last lines it wrote on stderr:
// "the host key of HOST is not known here (connect once with 'ssh HOST' and check its
// fingerprint)", "authentication to HOST failed (no key the server accepts: ...)", ... followed by
// ssh's own last line. Empty when ssh did not fail (exit status other than 255).
std::string describeSshFailure(const SshTarget& target, int exitStatus,
                               const std::vector<std::string>& stderrTail);

// The version handshake (slicescope-cli --version --json): the program, its version and the trace
// format it reads and writes.
struct ProgramVersion {
    std::string program = "slicescope-cli";
    std::string version;
    int traceFormat = 0;
};
ProgramVersion thisVersion();                      // this build's
std::string toJson(const ProgramVersion& version); // one line
Result<ProgramVersion> parseVersionJson(std::string_view text);
// Refused (Unsupported) when the trace formats differ, naming both versions.
Status checkCompatible(const ProgramVersion& local, const ProgramVersion& remote,
                       const std::string& where);

// The remote side of a run (docs/remote.md, "How it works"): a POSIX sh script, run as
//   sh -c SCRIPT slicescope-remote NONCE CLI MODE ARGS...
// It prints "NONCE version STATUS TEXT" (CLI --version --json), waits for "go" on its stdin,
// runs CLI ARGS with stdin from /dev/null, and ends it (SIGTERM, SIGKILL a second later) when its
// own stdin ends: the ssh session was closed or cancelled; then "\nNONCE end STATUS -".
// MODE "trace": it first makes a temporary directory ("NONCE dir DIR"); the ARGS word
// kOutputPlaceholder becomes /dev/fd/5, a pipe whose bytes stdout carries as the CLI writes them
// (a copy kept in DIR/trace.json), the CLI's stdout comes on stderr as "NONCE out LINE", and the
// trace is followed by "\nNONCE end STATUS SIZE" (SIZE: the trace's bytes, "-": none); the
// directory is removed once that line is sent.
std::string remoteScript();
inline constexpr std::string_view kOutputPlaceholder = "@slicescope-output@";
// The whole remote command line: the script and its arguments, each quoted.
std::string remoteCommandLine(const std::string& nonce, const std::string& cli, bool withTrace,
                              const std::vector<std::string>& arguments);

} // namespace slicescope::remote
