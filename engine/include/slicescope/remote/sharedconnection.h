#pragma once

// One ssh connection a host, kept for the commands that follow (docs/remote.md, "One connection
// for the commands that follow"): OpenSSH's connection sharing (ControlMaster), as Ansible uses
// it. The first --host command to a host opens the connection and leaves it open, idle, for
// kSharedConnectionIdleSeconds; the commands that follow within that time skip ssh's connection
// set-up (key exchange and authentication: about 0.2 s a command on a LAN). The sockets live in a
// directory only this user can enter.
#include "slicescope/core/result.h"

#include <string>
#include <sys/types.h>
#include <vector>

namespace slicescope::remote {

inline constexpr int kSharedConnectionIdleSeconds = 300;

// Where the sockets go: XDG_RUNTIME_DIR/slicescope-ssh where that is set, absolute and short
// enough for a socket's path, else TMPDIR (or /tmp)/slicescope-ssh-UID. Made 0700 when missing;
// refused (no sharing) when it is not a directory of this user that only this user can enter, is
// a symbolic link, or its path holds '%' (ssh's token character).
Result<std::string> sharedConnectionDirectory(const char* xdgRuntimeDir, const char* tmpDir,
                                              uid_t uid);

// The ControlPath for ssh in that directory: one socket a way of reaching a host. Its name is a
// hash of how the command named the host (key: the alias or [USER@]HOST[:PORT] as written, the
// configuration file and the ssh program), then ssh's %C (a hash of the user, the host name and
// port the configuration resolved): two aliases of one server keep their own connections, each
// checked by its own settings (known hosts, keys), and an alias pointed elsewhere opens anew.
std::string sharedConnectionSocket(const std::string& directory, const std::string& key);

// Whether ssh's last lines on stderr say its connection sharing failed (a socket it could not
// make or reach): the command is then tried again without sharing.
bool sharingFailed(const std::vector<std::string>& sshStderr);

// Whether the environment leaves sharing on: SLICESCOPE_SSH_SHARED=0 turns it off.
bool sharedConnectionsWanted(const char* sharedVariable);

} // namespace slicescope::remote
