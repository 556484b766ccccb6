# Writes OUT: a C++ file defining kb::oracle::builtin_prompt_text(), the bytes of IN.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," arr "${hex}")
file(WRITE ${OUT}.tmp "#include <string_view>\nnamespace kb::oracle {\nstatic const char kText[] = {${arr} 0};\nstd::string_view builtin_prompt_text() { return std::string_view(kText, ${bytes}); }\n}  // namespace kb::oracle\n")
file(RENAME ${OUT}.tmp ${OUT})
