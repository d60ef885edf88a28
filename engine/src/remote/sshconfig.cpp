#include "slicescope/remote/sshconfig.h"

#include <algorithm>
#include <cctype>

namespace slicescope::remote {

namespace {

bool isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\r';
}

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return out;
}

} // namespace

std::vector<std::string> sshConfigHosts(std::string_view configText) {
    std::vector<std::string> hosts;
    std::size_t begin = 0;
    while (begin < configText.size()) {
        const std::size_t end = std::min(configText.find('\n', begin), configText.size());
        std::string_view line = configText.substr(begin, end - begin);
        begin = end + 1;
        while (!line.empty() && isBlank(line.front())) {
            line.remove_prefix(1);
        }
        // "Keyword value" or "Keyword=value", the keyword in any case.
        std::size_t k = 0;
        while (k < line.size() && !isBlank(line[k]) && line[k] != '=') {
            ++k;
        }
        if (lower(line.substr(0, k)) != "host") {
            continue;
        }
        line.remove_prefix(k);
        while (!line.empty() && (isBlank(line.front()) || line.front() == '=')) {
            line.remove_prefix(1);
        }
        while (!line.empty()) {
            std::size_t w = 0;
            while (w < line.size() && !isBlank(line[w])) {
                ++w;
            }
            std::string word(line.substr(0, w));
            line.remove_prefix(w);
            while (!line.empty() && isBlank(line.front())) {
                line.remove_prefix(1);
            }
            if (word.size() >= 2 && word.front() == '"' && word.back() == '"') {
                word = word.substr(1, word.size() - 2);
            }
            if (word.empty() || word.front() == '#') {
                break; // a comment ends the line
            }
            const bool pattern = word.find_first_of("*?!") != std::string::npos;
            if (!pattern && std::find(hosts.begin(), hosts.end(), word) == hosts.end()) {
                hosts.push_back(std::move(word));
            }
        }
    }
    return hosts;
}

} // namespace slicescope::remote
