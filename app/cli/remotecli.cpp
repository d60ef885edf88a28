#include "remotecli.h"

#include "clioutput.h"
#include "slicescope/record/childprocess.h"
#include "slicescope/remote/remotecommand.h"
#include "slicescope/remote/sharedconnection.h"
#include "slicescope/remote/sshsession.h"
#include "slicescope/trace/atomicfile.h"
#include "slicescope/trace/tracelimits.h"

#include <CLI/CLI.hpp>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <random>
#include <signal.h>
#include <unistd.h>

namespace slicescope::cli {

namespace {

std::atomic<bool> gRemoteCancel{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void onRemoteCancel(int) {
    gRemoteCancel.store(true);
}

// Ctrl+C, SIGTERM (the GUI's Cancel) and SIGHUP end the remote work; what it finished comes back.
void installCancelHandlers() {
    struct sigaction action {};
    action.sa_handler = onRemoteCancel;
    sigemptyset(&action.sa_mask);
    for (const int s : {SIGINT, SIGTERM, SIGHUP}) {
        ::sigaction(s, &action, nullptr);
    }
    ::signal(SIGPIPE, SIG_IGN); // a write to an ssh that has gone is an error, not a death
}

std::string makeNonce() {
    std::random_device random;
    std::string nonce = "@ss-";
    for (int i = 0; i < 4; ++i) {
        char hex[9];
        std::snprintf(hex, sizeof hex, "%08x", unsigned(random()));
        nonce += hex;
    }
    return nonce;
}

void replaceAll(std::string& text, const std::string& from, const std::string& to) {
    if (from.empty()) {
        return;
    }
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
        text.replace(at, from.size(), to);
    }
}

// What the remote side says on a protocol line: "NONCE WORD REST".
bool protocolLine(const std::string& line, const std::string& nonce, std::string_view word,
                  std::string& rest) {
    const std::string head = nonce + " " + std::string(word);
    if (line.rfind(head, 0) != 0 || (line.size() > head.size() && line[head.size()] != ' ')) {
        return false;
    }
    rest = line.size() > head.size() ? line.substr(head.size() + 1) : std::string();
    return true;
}

struct Connection {
    remote::SshTarget target;
    remote::SshSession session;
    std::string remoteTrace; // DIR/trace.json on the remote, once known
    std::string localOutput;
};

// The remote CLI's messages name its output /dev/fd/5 (remote::remoteScript): here, the local one.
std::string localWords(const Connection& c, std::string line) {
    if (!c.localOutput.empty()) {
        replaceAll(line, "/dev/fd/5", c.localOutput);
        replaceAll(line, c.remoteTrace, c.localOutput);
    }
    return line;
}

// Until the handshake line: ssh's failure, a missing CLI or a format mismatch is an error here.
Status handshake(Connection& c, const std::string& nonce, const std::string& cli) {
    for (;;) {
        auto line = c.session.readLine();
        if (!line) {
            const int status = c.session.wait();
            if (c.session.cancelled()) {
                return fail(Error::Code::Cancelled, "cancelled before the remote run began");
            }
            std::string why = remote::describeSshFailure(c.target, status, c.session.stderrTail());
            return fail(Error::Code::Io, why.empty()
                                             ? "the remote shell on " + c.target.text() +
                                                   " ended before the run began (exit status " +
                                                   std::to_string(status) + ")"
                                             : why);
        }
        std::string rest;
        if (!protocolLine(*line, nonce, "version", rest)) {
            std::cerr << *line << '\n'; // a login banner or the shell's own words
            continue;
        }
        const auto space = rest.find(' ');
        const std::string status = rest.substr(0, space);
        const std::string text = space == std::string::npos ? "" : rest.substr(space + 1);
        const std::string where = c.target.text();
        if (status == "127") {
            return fail(Error::Code::Unsupported,
                        "slicescope-cli was not found on " + where + " ('" + cli +
                            "' is not on the remote PATH nor a program there): install it there "
                            "or name it with --remote-cli PATH (remote shell: " +
                            text + ")");
        }
        auto version = remote::parseVersionJson(text);
        if (status != "0" || !version) {
            return fail(Error::Code::Unsupported,
                        "'" + cli + "' on " + where +
                            " does not answer '--version --json' as slicescope-cli does (too "
                            "old, or another program): " +
                            text);
        }
        return remote::checkCompatible(remote::thisVersion(), *version, where + " (" + cli + ")");
    }
}

// Passes the remote command's stdout on until its end line; returns that line's rest.
std::optional<std::string> relayOutput(Connection& c, const std::string& nonce) {
    bool heldBlank = false; // the script writes "\n" before its end line
    for (;;) {
        auto line = c.session.readLine();
        if (!line) {
            return std::nullopt;
        }
        std::string rest;
        if (protocolLine(*line, nonce, "end", rest)) {
            return rest;
        }
        if (heldBlank) {
            std::cout << '\n';
        }
        heldBlank = line->empty();
        if (!heldBlank) {
            std::cout << *line << std::endl; // flushed: a parent (the GUI) reads progress live
        }
    }
}

// What came back with a trace: the end line's rest (nullopt: the connection ended before it) and
// whether the output was written.
struct Received {
    std::optional<std::string> end;
    Status written;
};

// Streams the trace into the local output while the remote CLI writes it, atomically: a transfer
// cut short, a size that does not match the end line's, or no trace at all leaves the output as
// it was. The last bytes are held back until the connection ends: the end line follows the trace.
Received receiveTrace(Connection& c, const std::string& nonce) {
    const std::string endMark = "\n" + nonce + " end ";
    const std::size_t holdBack = endMark.size() + 64;
    Received result;
    std::optional<Error> refused;
    bool pumped = false;
    // Reads to the end line (the remote side still cleans up then, while the file is written
    // and synced here) or to the end of the connection; the trace's bytes go to stream (none:
    // dropped). The nonce is this run's secret, so no trace holds the end mark.
    auto pump = [&](std::ostream* stream) {
        pumped = true;
        std::string held;
        std::uint64_t passed = 0; // bytes before those held
        c.session.readWhile([&](const char* data, std::size_t n) {
            held.append(data, n);
            if (const auto at = held.find(endMark);
                at != std::string::npos &&
                held.find('\n', at + endMark.size()) != std::string::npos) {
                return false;
            }
            if (held.size() < 2 * holdBack) {
                return true;
            }
            const std::size_t pass = held.size() - holdBack;
            if (passed + pass > trace::kMaxTraceFileBytes && !refused) {
                refused = Error{
                    Error::Code::OutOfRange,
                    "cannot write " + c.localOutput + ": the remote trace is more than the " +
                        std::to_string(trace::kMaxTraceFileBytes >> 20) + " MiB a trace may hold"};
            }
            if (stream != nullptr && !refused) {
                stream->write(held.data(), std::streamsize(pass));
            }
            passed += pass;
            held.erase(0, pass);
            return true;
        });
        const auto at = held.find(endMark);
        if (at == std::string::npos) {
            return false;
        }
        result.end = held.substr(at + endMark.size());
        result.end->erase(std::min(result.end->find('\n'), result.end->size()));
        const auto space = result.end->find(' ');
        const std::string size = space == std::string::npos ? "" : result.end->substr(space + 1);
        std::uint64_t expected = 0;
        const auto parsed = std::from_chars(size.data(), size.data() + size.size(), expected);
        const std::uint64_t bytes = passed + at;
        if (size == "-" || refused) {
            return false;
        }
        if (parsed.ec != std::errc{} || expected != bytes) {
            refused = Error{Error::Code::Io, "the connection to " + c.target.text() + " brought " +
                                                 std::to_string(bytes) +
                                                 " bytes of a trace the remote side wrote as " +
                                                 size + "; " + c.localOutput + " was not written"};
            return false;
        }
        if (stream != nullptr) {
            stream->write(held.data(), std::streamsize(at));
        }
        return true;
    };
    bool complete = false;
    result.written = trace::writeFileAtomically(c.localOutput, [&](std::ostream& stream) {
        complete = pump(&stream);
        if (!complete) {
            stream.setstate(std::ios::badbit); // the temporary file is removed
        }
    });
    if (!pumped) {
        pump(nullptr); // the output could not be opened: the end line still tells how it ended
    }
    if (refused) {
        result.written = tl::unexpected(*refused);
    } else if (!complete && pumped) {
        result.written = {}; // no trace came back, or the connection ended: said by the caller
    }
    return result;
}

int connectionLost(Connection& c) {
    const int status = c.session.wait();
    if (c.session.cancelled()) {
        std::cerr << "slicescope-cli: cancelled: the run on " << c.target.text()
                  << " was stopped; nothing came back to write\n";
        return kExitInterrupted;
    }
    std::string why = remote::describeSshFailure(c.target, status, c.session.stderrTail());
    if (why.empty()) {
        why = "the remote run on " + c.target.text() + " ended without finishing (exit status " +
              std::to_string(status) + ")";
    }
    std::string kept;
    if (!c.remoteTrace.empty()) {
        kept = "; runs it finished, if any, are kept there in " + c.remoteTrace;
    }
    return reportError(Error{Error::Code::Io, "the connection to " + c.target.text() +
                                                  " was lost mid-run: " + why + kept});
}

} // namespace

void addRemoteOptions(CLI::App* cmd, RemoteOptions& o) {
    cmd->add_option("--host", o.host,
                    "Run on another machine through ssh: [USER@]HOST[:PORT] or a Host of "
                    "~/.ssh/config (docs/remote.md)");
    if (const char* fromEnv = std::getenv("SLICESCOPE_REMOTE_CLI");
        fromEnv != nullptr && *fromEnv != '\0') {
        o.remoteCli = fromEnv;
    }
    cmd->add_option(
        "--remote-cli", o.remoteCli,
        "With --host: the slicescope-cli to run there (default: $SLICESCOPE_REMOTE_CLI, "
        "else slicescope-cli on the remote PATH)");
    cmd->add_option("--ssh-config", o.sshConfig, "With --host: ssh's configuration file (ssh -F)");
}

std::vector<std::string> forwardedArguments(const CLI::App& cmd, const std::string& outputOption) {
    std::vector<std::string> args, positionals;
    for (const CLI::Option* opt : cmd.get_options()) {
        if (opt->count() == 0) {
            continue;
        }
        const std::string name =
            opt->get_lnames().empty() ? std::string() : "--" + opt->get_lnames().front();
        if (name == "--help" || name == "--host" || name == "--remote-cli" ||
            name == "--ssh-config" || (!outputOption.empty() && name == outputOption)) {
            continue;
        }
        if (opt->get_positional() && !opt->nonpositional()) {
            positionals.insert(positionals.end(), opt->results().begin(), opt->results().end());
            continue;
        }
        const std::string spelled = name.empty() ? "-" + opt->get_snames().front() : name;
        for (const auto& value : opt->results()) {
            args.push_back(opt->get_type_size_max() == 0 ? spelled : spelled + "=" + value);
        }
    }
    if (!outputOption.empty()) {
        // Two words: the remote script replaces the placeholder word by its temporary file.
        args.insert(args.end(), {outputOption, std::string(remote::kOutputPlaceholder)});
    }
    if (!positionals.empty()) {
        args.emplace_back("--");
        args.insert(args.end(), positionals.begin(), positionals.end());
    }
    return args;
}

namespace {

// The ciphers to ask ssh for when a trace comes back (remote::preferredCiphers): empty where
// ssh's configuration chose its own, the CPU has no AES instructions, or `ssh -G` fails.
std::string ciphersForATrace(const remote::SshOptions& ssh, const remote::SshTarget& target) {
    std::ifstream cpuinfo("/proc/cpuinfo");
    const std::string cpu{std::istreambuf_iterator<char>(cpuinfo), {}};
    if (!remote::cpuHasAesInstructions(cpu)) {
        return {};
    }
    record::ChildSpec spec;
    spec.argv = remote::sshConfigQueryArgv(ssh, target);
    const auto query = record::runCaptured(spec);
    if (!query || record::shellExitStatus(query->waitStatus) != 0) {
        return {};
    }
    return remote::preferredCiphers(query->out, true);
}

// A connection whose remote script answered the version handshake (ready), or why not.
struct Started {
    std::unique_ptr<Connection> connection; // null when ssh could not be started
    Status ready;
};

// Starts ssh running the remote script and waits for the version handshake; on failure the
// session has ended, its stderr kept.
Started startAndShake(const remote::SshOptions& ssh, const remote::SshTarget& target,
                      const std::string& nonce, const std::string& remoteCli,
                      const std::vector<std::string>& arguments, const std::string& localOutput) {
    const auto argv = remote::sshArgv(
        ssh, target, remote::remoteCommandLine(nonce, remoteCli, !localOutput.empty(), arguments));
    auto session = remote::SshSession::start(argv);
    if (!session) {
        return {nullptr, tl::unexpected(session.error())};
    }
    auto c = std::make_unique<Connection>(Connection{target, std::move(*session), {}, localOutput});
    c->session.cancel = &gRemoteCancel;
    c->session.onStderrLine = [raw = c.get(), nonce](std::string_view line) {
        std::string rest;
        if (protocolLine(std::string(line), nonce, "out", rest)) {
            std::cout << localWords(*raw, std::move(rest)) << std::endl; // the GUI reads it live
        } else {
            std::cerr << localWords(*raw, std::string(line)) << std::endl;
        }
    };
    Status ready = handshake(*c, nonce, remoteCli);
    if (!ready) {
        c->session.closeInput();
        c->session.wait();
    }
    return {std::move(c), std::move(ready)};
}

// The socket through which ssh shares one connection a host (remote/sharedconnection.h); empty,
// so every command connects anew, where SLICESCOPE_SSH_SHARED=0 or no private directory can be
// had for it.
std::string sharedConnectionSocket(const remote::SshOptions& ssh, const remote::SshTarget& target) {
    if (!remote::sharedConnectionsWanted(std::getenv("SLICESCOPE_SSH_SHARED"))) {
        return {};
    }
    const auto directory = remote::sharedConnectionDirectory(std::getenv("XDG_RUNTIME_DIR"),
                                                             std::getenv("TMPDIR"), ::getuid());
    if (!directory) {
        return {};
    }
    std::string key = target.text() + '\n' + ssh.configFile;
    for (const auto& word : ssh.program) {
        key += '\n' + word;
    }
    return remote::sharedConnectionSocket(*directory, key);
}

} // namespace

int runOnHost(const RemoteOptions& o, const CLI::App& cmd, const std::string& localOutput) {
    auto target = remote::parseSshTarget(o.host);
    if (!target) {
        return reportError(target.error());
    }
    if (o.remoteCli.empty()) {
        return reportUsageError("--remote-cli needs a program name or path");
    }
    // Refused now rather than after the remote run: a directory, a read-only file, a missing
    // folder.
    if (!localOutput.empty()) {
        if (auto resolved = trace::resolveOutput(localOutput); !resolved) {
            return reportError(resolved.error());
        }
    }
    std::vector<std::string> arguments{cmd.get_name()};
    const auto forwarded = forwardedArguments(cmd, localOutput.empty() ? "" : "--output");
    arguments.insert(arguments.end(), forwarded.begin(), forwarded.end());

    remote::SshOptions ssh;
    ssh.program = remote::sshProgramFromEnvironment(std::getenv("SLICESCOPE_SSH"));
    ssh.configFile = o.sshConfig;
    ssh.controlPath = sharedConnectionSocket(ssh, *target);
    // A shared connection keeps the ciphers of the command that opened it: every command asks.
    if (!localOutput.empty() || !ssh.controlPath.empty()) {
        ssh.ciphers = ciphersForATrace(ssh, *target);
    }
    const std::string nonce = makeNonce();
    installCancelHandlers();
    Started started = startAndShake(ssh, *target, nonce, o.remoteCli, arguments, localOutput);
    if (!started.ready && started.connection && !ssh.controlPath.empty() &&
        started.ready.error().code != Error::Code::Cancelled &&
        remote::sharingFailed(started.connection->session.stderrTail())) {
        std::cerr << "slicescope-cli: note: ssh could not share its connection to "
                  << target->text() << ": connecting without sharing\n";
        ssh.controlPath.clear();
        started = startAndShake(ssh, *target, nonce, o.remoteCli, arguments, localOutput);
    }
    if (!started.ready) {
        const bool cancelled = started.ready.error().code == Error::Code::Cancelled;
        reportError(started.ready.error());
        return cancelled ? kExitInterrupted : kExitFailure;
    }
    Connection& c = *started.connection;
    c.session.write("go\n");
    std::optional<std::string> end;
    Status written;
    if (localOutput.empty()) {
        end = relayOutput(c, nonce);
    } else {
        std::string rest;
        auto line = c.session.readLine();
        if (line && protocolLine(*line, nonce, "dir", rest)) {
            c.remoteTrace = rest + "/trace.json";
            auto received = receiveTrace(c, nonce);
            end = std::move(received.end);
            written = std::move(received.written);
        }
    }
    if (!end) {
        return connectionLost(c);
    }
    // "STATUS SIZE": the remote command's exit status and its trace's size ("-": none).
    const auto space = end->find(' ');
    int status = kExitFailure;
    std::from_chars(end->data(), end->data() + std::min(space, end->size()), status);
    const bool traceCame = space != std::string::npos && end->substr(space + 1) != "-";
    c.session.wait();
    if (!written) {
        return reportError(written.error());
    }
    if (c.session.cancelled() && (!traceCame || localOutput.empty())) {
        std::cerr << "slicescope-cli: cancelled: the run on " << c.target.text() << " was stopped"
                  << (localOutput.empty() ? "" : "; nothing came back to write") << '\n';
        return kExitInterrupted;
    }
    return status;
}

} // namespace slicescope::cli
