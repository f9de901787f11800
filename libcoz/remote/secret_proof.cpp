// SHA-256, HMAC-SHA256 and helpers for the challenge-response in secret_proof.h, written from
// FIPS 180-4 and RFC 2104 so the profiler needs no crypto library.
#include "remote/secret_proof.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace coz::remote {
namespace {

constexpr size_t kBlockSize = 64;  // SHA-256 works on 512-bit blocks.

// FIPS 180-4 section 4.2.2: first 32 bits of the fractional parts of the cube roots of the
// first 64 primes.
constexpr uint32_t kRound[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

// Section 5.3.3: first 32 bits of the fractional parts of the square roots of the first 8
// primes.
constexpr std::array<uint32_t, 8> kInitialState = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

using State = std::array<uint32_t, 8>;

uint32_t rotr(uint32_t x, int n) {
  return (x >> n) | (x << (32 - n));
}

// Words are big-endian (section 3.1), whatever the host's byte order.
uint32_t load_be32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// Section 6.2.2, steps 1 (message schedule) to 4 (intermediate hash), for one block.
void compress(State& h, const uint8_t* block) {
  uint32_t w[64];
  for (int t = 0; t < 16; ++t) w[t] = load_be32(block + 4 * t);
  for (int t = 16; t < 64; ++t) {
    uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
    uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
    w[t] = w[t - 16] + s0 + w[t - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int t = 0; t < 64; ++t) {
    uint32_t t1 =
        k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[t] + w[t];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

// Section 5.1.1: a 1 bit, zeros, then the message length in bits as a 64-bit big-endian
// number, ending on a block boundary. The tail needs one block, or two when the length does
// not fit after the message's last bytes.
void compress_tail(State& h, const uint8_t* rest, size_t rest_len, uint64_t total_len) {
  uint8_t tail[2 * kBlockSize] = {};
  std::memcpy(tail, rest, rest_len);
  tail[rest_len] = 0x80;
  size_t tail_len = rest_len + 1 + 8 <= kBlockSize ? kBlockSize : 2 * kBlockSize;
  uint64_t bits = total_len * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = static_cast<uint8_t>(bits >> (8 * i));
  for (size_t off = 0; off < tail_len; off += kBlockSize) compress(h, tail + off);
}

std::string to_hex(const uint8_t* data, size_t len) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (size_t i = 0; i < len; ++i) {
    out[2 * i] = kDigits[data[i] >> 4];
    out[2 * i + 1] = kDigits[data[i] & 0xf];
  }
  return out;
}

// Fills `buf` from getrandom(2); false if the kernel has no such call or it fails.
bool fill_from_getrandom(uint8_t* buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = getrandom(buf + done, len - done, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

// For kernels before 3.17 or sandboxes that block getrandom.
bool fill_from_urandom(uint8_t* buf, size_t len) {
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  size_t done = 0;
  while (done < len) {
    ssize_t n = read(fd, buf + done, len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    done += static_cast<size_t>(n);
  }
  close(fd);
  return done == len;
}

}  // namespace

std::array<uint8_t, 32> sha256(std::string_view data) {
  State h = kInitialState;
  auto bytes = reinterpret_cast<const uint8_t*>(data.data());
  size_t whole = data.size() - data.size() % kBlockSize;
  for (size_t off = 0; off < whole; off += kBlockSize) compress(h, bytes + off);
  compress_tail(h, bytes + whole, data.size() - whole, data.size());
  std::array<uint8_t, 32> digest;
  for (size_t i = 0; i < 32; ++i) digest[i] = static_cast<uint8_t>(h[i / 4] >> (24 - 8 * (i % 4)));
  return digest;
}

std::string hmac_sha256_hex(std::string_view key, std::string_view message) {
  // RFC 2104: a key longer than the block is replaced by its hash; shorter ones are padded
  // with zeros to the block size.
  std::array<uint8_t, 32> hashed_key;
  if (key.size() > kBlockSize) {
    hashed_key = sha256(key);
    key = std::string_view(reinterpret_cast<const char*>(hashed_key.data()), hashed_key.size());
  }
  std::string inner(kBlockSize, '\x36');
  std::string outer(kBlockSize, '\x5c');
  for (size_t i = 0; i < key.size(); ++i) {
    inner[i] = static_cast<char>(inner[i] ^ key[i]);
    outer[i] = static_cast<char>(outer[i] ^ key[i]);
  }
  inner.append(message);
  std::array<uint8_t, 32> inner_hash = sha256(inner);
  outer.append(reinterpret_cast<const char*>(inner_hash.data()), inner_hash.size());
  std::array<uint8_t, 32> mac = sha256(outer);
  return to_hex(mac.data(), mac.size());
}

bool same_in_constant_time(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  // Accumulate every difference instead of returning at the first, and read through a
  // volatile so the compiler cannot turn the loop back into an early-exit memcmp.
  volatile uint8_t diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff = static_cast<uint8_t>(diff | (static_cast<uint8_t>(a[i]) ^ static_cast<uint8_t>(b[i])));
  }
  return diff == 0;
}

std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  auto buf = reinterpret_cast<uint8_t*>(raw.data());
  if (!fill_from_getrandom(buf, bytes) && !fill_from_urandom(buf, bytes))
    return std::string();
  return to_hex(buf, bytes);
}

bool read_secret(const std::string& given, const std::string& file, std::string* secret,
                 std::string* why) {
  if (!given.empty()) {
    *secret = given;
    return true;
  }
  if (file.empty()) {
    return true;
  }
  int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  char buf[4096];
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
  if (fd >= 0) {
    close(fd);
  }
  if (n <= 0) {
    *why = "cannot read the secret file " + file;
    return false;
  }
  secret->assign(buf, static_cast<size_t>(n));
  secret->erase(secret->find_last_not_of("\r\n") + 1);
  return true;
}

}  // namespace coz::remote
