// Proof of a shared secret for cross-host profiling runs. A member of the run proves it knows
// the run's secret by answering the coordinator's random challenge with
// HMAC-SHA256(secret, challenge), so the secret itself never crosses the network.
// Meant for normal threads only: these functions allocate and are not async-signal-safe.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <array>
#include <string>
#include <string_view>

namespace coz::remote {

// SHA-256 digest of `data` (FIPS 180-4).
std::array<uint8_t, 32> sha256(std::string_view data);

// HMAC-SHA256 of `message` under `key` (RFC 2104), as 64 lowercase hex characters.
std::string hmac_sha256_hex(std::string_view key, std::string_view message);

// True when `a` and `b` are equal. Compares every byte whatever it finds, so the time taken
// tells an attacker nothing about how much of a guessed proof was right. Lengths are public.
bool same_in_constant_time(std::string_view a, std::string_view b);

// `bytes` random bytes from the kernel, as 2 * `bytes` lowercase hex characters (a challenge
// nonce). Empty if no randomness could be had: a caller must refuse rather than reuse a nonce.
std::string random_hex(size_t bytes);

// The run's shared secret: `given` (COZ_SECRET, read with the run's settings,
// config/run_config.h) when not empty, else the contents of `file` less trailing newlines (none
// when `file` is empty); false, with `why`, when a file was named and cannot be read or is empty.
// Never from the command line, where other users of the host could read it.
bool read_secret(const std::string& given, const std::string& file, std::string* secret,
                 std::string* why);

}  // namespace coz::remote
