# Writes OUTPUT, a C++ source defining slicescope::embedded::SYMBOL() over INPUT's bytes.
file(READ ${INPUT} hex HEX)
string(LENGTH "${hex}" hexLength)
math(EXPR byteCount "${hexLength} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUTPUT}
"// Generated from ${INPUT}; do not edit.\n#include <string_view>\n"
"namespace slicescope::embedded {\nnamespace { const char kData[] = {${bytes} 0}; }\n"
"std::string_view ${SYMBOL}() { return {kData, ${byteCount}}; }\n}\n")
