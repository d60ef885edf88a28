#pragma once

// The hosts an OpenSSH client configuration (~/.ssh/config) names, for the GUI's Target box.
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::remote {

// The names of its Host lines ("Host a b", "host=a", any case), in order and each once, without
// patterns ("*", "?", "!negated") that name no one host. Match blocks and Include files are not
// followed.
std::vector<std::string> sshConfigHosts(std::string_view configText);

} // namespace slicescope::remote
