#include "jsontext.h"

#include <string>

namespace slicescope {

Result<nlohmann::json> parseJsonText(std::string_view text) {
    // The key of the value being read: where a number overflows, the field it belongs to (or
    // the array it is in).
    std::string key;
    const auto remember = [&key](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        if (event == nlohmann::json::parse_event_t::key && parsed.is_string()) {
            key = parsed.get_ref<const std::string&>();
        }
        return true;
    };
    try {
        return nlohmann::json::parse(text.begin(), text.end(), remember);
    } catch (const nlohmann::json::out_of_range& e) {
        // 406, "number overflow parsing '1e400'": the number's text is the last quoted part.
        const std::string what = e.what();
        const std::size_t close = what.rfind('\'');
        const std::size_t open = close == std::string::npos || close == 0
                                     ? std::string::npos
                                     : what.rfind('\'', close - 1);
        const std::string number = open == std::string::npos
                                       ? std::string("a number")
                                       : what.substr(open + 1, close - open - 1);
        return fail(Error::Code::OutOfRange,
                    (key.empty() ? std::string() : "\"" + key + "\" is ") + number +
                        (key.empty() ? " is" : ",") +
                        " out of range: beyond the largest number a double holds (about "
                        "1.8e308)");
    } catch (const nlohmann::json::exception& e) {
        return fail(Error::Code::Parse, e.what());
    }
}

} // namespace slicescope
