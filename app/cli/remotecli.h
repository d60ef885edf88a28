#pragma once

// `--host`: run, sweep, record, devices and model on another machine, through the system's ssh
// (docs/remote.md). The subcommand's own arguments go to the remote slicescope-cli as given, each
// quoted for the remote shell; its progress and messages come back as they are written, and its
// trace comes back over the same connection and is written here as a local run writes it.
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace slicescope::cli {

struct RemoteOptions {
    std::string host;                         // [USER@]HOST[:PORT]; empty: run here
    std::string remoteCli = "slicescope-cli"; // or $SLICESCOPE_REMOTE_CLI
    std::string sshConfig;
};

// Adds --host, --remote-cli and --ssh-config to a subcommand.
void addRemoteOptions(CLI::App* cmd, RemoteOptions& o);

// The arguments the user gave cmd, rebuilt from what CLI11 parsed (so "--x=v", "--x v" and
// bundled flags all arrive alike), less --host, --remote-cli, --ssh-config and the output option
// (outputOption, e.g. "--output"; it becomes the remote temporary file). Positionals (record's
// program) follow a "--". Values go as "--name=value", so none can be read as an option there.
std::vector<std::string> forwardedArguments(const CLI::App& cmd, const std::string& outputOption);

// Runs cmd with its arguments on o.host and returns the exit status: the remote command's, or 1
// when ssh, the handshake or the transfer failed, or 130 when cancelled with nothing to keep.
// localOutput (empty: the command writes no trace) receives the remote trace, atomically.
int runOnHost(const RemoteOptions& o, const CLI::App& cmd, const std::string& localOutput);

} // namespace slicescope::cli
