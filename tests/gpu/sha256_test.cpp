// SHA-256 against the FIPS 180-2 test vectors, including the multi-block and padding edge cases.
#include <string>

#include "rtc/sha256.h"
#include "support/catch.hpp"

using moetune::rtc::Sha256;

TEST_CASE("sha256 matches the FIPS 180-2 vectors", "[rtc][sha256]") {
    CHECK(Sha256().hex_digest() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(Sha256().update("abc").hex_digest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(Sha256().update("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex_digest() ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(Sha256().update(std::string(1000000, 'a')).hex_digest() ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 gives the same digest however the input is split", "[rtc][sha256]") {
    const std::string text(200, 'x');
    for (std::size_t cut : {0, 1, 55, 56, 63, 64, 65, 199}) {
        INFO("cut at " << cut);
        CHECK(Sha256().update(text.substr(0, cut)).update(text.substr(cut)).hex_digest() ==
              Sha256().update(text).hex_digest());
    }
}
