// SHA-256 against the FIPS 180-4 examples, HMAC-SHA256 against RFC 4231, and the helpers used
// for the cross-host challenge-response.
#include "remote/secret_proof.h"

#include <gtest/gtest.h>

#include <string>

namespace coz::remote {
namespace {

std::string hex(const std::array<uint8_t, 32>& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t byte : digest) {
    out += kDigits[byte >> 4];
    out += kDigits[byte & 0xf];
  }
  return out;
}

TEST(SecretProof, Sha256OfEmptyMessage) {
  EXPECT_EQ(hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(SecretProof, Sha256OfAbc) {
  EXPECT_EQ(hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

// 56 bytes: the length no longer fits in the message's block, so padding takes a second one.
TEST(SecretProof, Sha256Of448BitMessage) {
  EXPECT_EQ(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(SecretProof, Sha256OfOneMillionA) {
  EXPECT_EQ(hex(sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(SecretProof, HmacRfc4231Case1) {
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(SecretProof, HmacRfc4231Case2) {
  EXPECT_EQ(hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(SecretProof, HmacRfc4231Case3) {
  EXPECT_EQ(hmac_sha256_hex(std::string(20, '\xaa'), std::string(50, '\xdd')),
            "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
}

TEST(SecretProof, HmacRfc4231Case4) {
  std::string key;
  for (int i = 1; i <= 25; ++i) key += static_cast<char>(i);
  EXPECT_EQ(hmac_sha256_hex(key, std::string(50, '\xcd')),
            "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
}

// Cases 6 and 7 use a 131-byte key, longer than the block, so it is hashed first.
TEST(SecretProof, HmacRfc4231Case6) {
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'),
                            "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(SecretProof, HmacRfc4231Case7) {
  EXPECT_EQ(hmac_sha256_hex(std::string(131, '\xaa'),
                            "This is a test using a larger than block-size key and a larger "
                            "than block-size data. The key needs to be hashed before being "
                            "used by the HMAC algorithm."),
            "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

TEST(SecretProof, SameInConstantTime) {
  EXPECT_TRUE(same_in_constant_time("", ""));
  EXPECT_TRUE(same_in_constant_time("proof", "proof"));
  EXPECT_FALSE(same_in_constant_time("proof", "proog"));
  EXPECT_FALSE(same_in_constant_time("Xroof", "proof"));
  EXPECT_FALSE(same_in_constant_time("proof", "proofs"));
  EXPECT_FALSE(same_in_constant_time("", "p"));
}

TEST(SecretProof, RandomHexIsLowercaseHexOfTwiceTheLength) {
  for (size_t n : {1, 16, 32, 100}) {
    std::string nonce = random_hex(n);
    ASSERT_EQ(nonce.size(), 2 * n);
    EXPECT_EQ(nonce.find_first_not_of("0123456789abcdef"), std::string::npos) << nonce;
  }
}

TEST(SecretProof, RandomHexDiffersBetweenCalls) {
  EXPECT_NE(random_hex(32), random_hex(32));
}

}  // namespace
}  // namespace coz::remote
