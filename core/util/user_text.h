#pragma once
// Quoting bytes that came from a user's file or command line before they go into a message.
// Input files are untrusted: a token may be 2 MB long or carry terminal escape codes, and either
// would reach the user's terminal verbatim if a message echoed it. quote_user_text keeps messages
// one short, inert line.
#include <cstddef>
#include <string>
#include <string_view>

namespace splat {

// `raw` in single quotes, shown as at most about `max_chars` characters:
//  - printable ASCII and valid UTF-8 characters are kept as they are;
//  - control bytes (C0, DEL), C1 controls (U+0080..U+009F, which some terminals obey like ESC [),
//    the characters that reorder or break a line (bidi overrides and isolates, U+2028/U+2029) and
//    every byte that is not part of valid UTF-8 are written as \xNN, byte by byte;
//  - a backslash or single quote is written as \\ or \' so that the quoted text is unambiguous;
//  - longer text is cut at a character boundary and followed by "..." and its total length:
//    'abc...' (2000000 bytes).
// An escape counts as the characters it prints (\xNN: 4), so the result stays short however the
// input is made.
std::string quote_user_text(std::string_view raw, size_t max_chars = 80);

}  // namespace splat
