// quote_user_text: user bytes in messages are short, inert and unambiguous.
#include <catch2/catch.hpp>

#include <string>

#include "core/util/user_text.h"

using splat::quote_user_text;

TEST_CASE("user text: plain text and valid UTF-8 are quoted as they are", "[user_text]") {
  CHECK(quote_user_text("seven") == "'seven'");
  CHECK(quote_user_text("") == "''");
  CHECK(quote_user_text("caf\xC3\xA9 \xE2\x9C\x93 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x99\x82") ==
        "'caf\xC3\xA9 \xE2\x9C\x93 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x99\x82'");
  // Backslash and quote are escaped, so the quoted text reads back unambiguously.
  CHECK(quote_user_text("a\\b'c") == "'a\\\\b\\'c'");
}

TEST_CASE("user text: control bytes and terminal escapes are written as \\xNN", "[user_text]") {
  CHECK(quote_user_text("\x1B[31mred\x1B[0m") == "'\\x1B[31mred\\x1B[0m'");
  CHECK(quote_user_text(std::string("a\nb\tc\rd\x7F", 8)) == "'a\\x0Ab\\x09c\\x0Dd\\x7F'");
  CHECK(quote_user_text(std::string("nul\0byte", 8)) == "'nul\\x00byte'");
  // C1 CSI (U+009B, what ESC [ is in 8-bit terminals) and a right-to-left override (U+202E).
  CHECK(quote_user_text("x\xC2\x9B" "2J") == "'x\\xC2\\x9B2J'");
  CHECK(quote_user_text("ab\xE2\x80\xAE" "cd") == "'ab\\xE2\\x80\\xAEcd'");
}

TEST_CASE("user text: bytes that are not UTF-8 are escaped one by one", "[user_text]") {
  CHECK(quote_user_text("\xFF\xFE") == "'\\xFF\\xFE'");
  CHECK(quote_user_text("\xC0\xAF") == "'\\xC0\\xAF'");                // overlong '/'
  CHECK(quote_user_text("\xED\xA0\x80") == "'\\xED\\xA0\\x80'");       // a UTF-16 surrogate
  CHECK(quote_user_text("\xF4\x90\x80\x80") == "'\\xF4\\x90\\x80\\x80'");  // above U+10FFFF
  CHECK(quote_user_text("ok\xE2\x82") == "'ok\\xE2\\x82'");            // cut-off sequence at the end
  CHECK(quote_user_text("\xE2(x") == "'\\xE2(x'");                     // a lead byte without its continuation
}

TEST_CASE("user text: long text is cut at a character boundary with its total length", "[user_text]") {
  const std::string token(2'000'000, 'A');
  const std::string q = quote_user_text(token);
  CHECK(q == "'" + std::string(80, 'A') + "...' (2000000 bytes)");

  // Exactly the limit: nothing cut.
  CHECK(quote_user_text(std::string(80, 'b')) == "'" + std::string(80, 'b') + "'");
  CHECK(quote_user_text("abcdef", 3) == "'abc...' (6 bytes)");

  // Multi-byte characters count once each and are never split.
  std::string accents;
  for (int i = 0; i < 200; ++i) accents += "\xC3\xA9";
  std::string want;
  for (int i = 0; i < 80; ++i) want += "\xC3\xA9";
  CHECK(quote_user_text(accents) == "'" + want + "...' (400 bytes)");

  // Escapes count as what they print, so escaped input cannot make the message long: 20 x \x1B.
  const std::string escapes(1000, '\x1B');
  std::string want_escapes;
  for (int i = 0; i < 20; ++i) want_escapes += "\\x1B";
  CHECK(quote_user_text(escapes) == "'" + want_escapes + "...' (1000 bytes)");
  // An escape that would cross the limit is left out whole, never half printed.
  CHECK(quote_user_text("abc\x1B", 5) == "'abc...' (4 bytes)");
}
