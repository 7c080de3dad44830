/*
 * hash.c - hash prefixes and salt buckets for row keys: MD5 through
 * OpenSSL's EVP, xxHash through libxxhash, MurmurHash3 (x86_32 and x64_128,
 * no Debian package) written here after Austin Appleby's public-domain
 * reference, and Phoenix's salt byte (Java Arrays.hashCode over signed
 * bytes, 32-bit wrap, abs(h % N)).
 */
#include "common/error.h"
#include "rowkey/design.h"

#include <openssl/evp.h>
#include <string.h>
#include <xxhash.h>

static inline uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

static inline uint64_t rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

static inline uint32_t load32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t load64le(const uint8_t *p)
{
	return (uint64_t)load32le(p) | (uint64_t)load32le(p + 4) << 32;
}

static inline uint32_t fmix32(uint32_t h)
{
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

static inline uint64_t fmix64(uint64_t k)
{
	k ^= k >> 33;
	k *= UINT64_C(0xff51afd7ed558ccd);
	k ^= k >> 33;
	k *= UINT64_C(0xc4ceb9fe1a85ec53);
	k ^= k >> 33;
	return k;
}

uint32_t sbx_murmur3_32(const void *data, size_t len, uint32_t seed)
{
	const uint8_t *p = data;
	const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
	uint32_t h1 = seed;
	size_t nblocks = len / 4;
	for (size_t i = 0; i < nblocks; i++) {
		uint32_t k1 = load32le(p + 4 * i);
		k1 *= c1;
		k1 = rotl32(k1, 15);
		k1 *= c2;
		h1 ^= k1;
		h1 = rotl32(h1, 13);
		h1 = h1 * 5 + 0xe6546b64;
	}
	const uint8_t *tail = p + 4 * nblocks;
	uint32_t k1 = 0;
	switch (len & 3) {
	case 3:
		k1 ^= (uint32_t)tail[2] << 16;
		/* fallthrough */
	case 2:
		k1 ^= (uint32_t)tail[1] << 8;
		/* fallthrough */
	case 1:
		k1 ^= tail[0];
		k1 *= c1;
		k1 = rotl32(k1, 15);
		k1 *= c2;
		h1 ^= k1;
	}
	h1 ^= (uint32_t)len;
	return fmix32(h1);
}

void sbx_murmur3_128(uint64_t out[2], const void *data, size_t len,
		     uint32_t seed)
{
	const uint8_t *p = data;
	const uint64_t c1 = UINT64_C(0x87c37b91114253d5);
	const uint64_t c2 = UINT64_C(0x4cf5ad432745937f);
	uint64_t h1 = seed, h2 = seed;
	size_t nblocks = len / 16;
	for (size_t i = 0; i < nblocks; i++) {
		uint64_t k1 = load64le(p + 16 * i);
		uint64_t k2 = load64le(p + 16 * i + 8);
		k1 *= c1;
		k1 = rotl64(k1, 31);
		k1 *= c2;
		h1 ^= k1;
		h1 = rotl64(h1, 27);
		h1 += h2;
		h1 = h1 * 5 + 0x52dce729;
		k2 *= c2;
		k2 = rotl64(k2, 33);
		k2 *= c1;
		h2 ^= k2;
		h2 = rotl64(h2, 31);
		h2 += h1;
		h2 = h2 * 5 + 0x38495ab5;
	}
	const uint8_t *tail = p + 16 * nblocks;
	uint64_t k1 = 0, k2 = 0;
	size_t rest = len & 15;
	for (size_t i = rest; i > 8; i--)
		k2 ^= (uint64_t)tail[i - 1] << (8 * (i - 9));
	if (rest > 8) {
		k2 *= c2;
		k2 = rotl64(k2, 33);
		k2 *= c1;
		h2 ^= k2;
	}
	for (size_t i = rest < 8 ? rest : 8; i > 0; i--)
		k1 ^= (uint64_t)tail[i - 1] << (8 * (i - 1));
	if (rest > 0) {
		k1 *= c1;
		k1 = rotl64(k1, 31);
		k1 *= c2;
		h1 ^= k1;
	}
	h1 ^= (uint64_t)len;
	h2 ^= (uint64_t)len;
	h1 += h2;
	h2 += h1;
	h1 = fmix64(h1);
	h2 = fmix64(h2);
	h1 += h2;
	h2 += h1;
	out[0] = h1;
	out[1] = h2;
}

size_t sbx_hash_size(sbx_hash_algo algo)
{
	switch (algo) {
	case SBX_HASH_MD5:
	case SBX_HASH_MURMUR3_128:
		return 16;
	case SBX_HASH_MURMUR3_32:
	case SBX_HASH_XXH32:
		return 4;
	case SBX_HASH_XXH64:
	case SBX_HASH_XXH3:
		return 8;
	}
	return 0;
}

static void store_le(uint8_t *out, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = (uint8_t)(v >> (8 * i));
}

int sbx_hash(uint8_t *out, sbx_hash_algo algo, uint64_t seed, const void *data,
	     size_t len)
{
	switch (algo) {
	case SBX_HASH_MD5: {
		unsigned int n = 0;
		if (!EVP_Digest(data, len, out, &n, EVP_md5(), NULL) || n != 16)
			return sbx_error_set(SBX_EINVAL,
					     "OpenSSL could not compute MD5");
		return SBX_OK;
	}
	case SBX_HASH_MURMUR3_32:
		store_le(out, sbx_murmur3_32(data, len, (uint32_t)seed), 4);
		return SBX_OK;
	case SBX_HASH_MURMUR3_128: {
		uint64_t h[2];
		sbx_murmur3_128(h, data, len, (uint32_t)seed);
		store_le(out, h[0], 8);
		store_le(out + 8, h[1], 8);
		return SBX_OK;
	}
	case SBX_HASH_XXH32: {
		XXH32_canonical_t c;
		XXH32_canonicalFromHash(&c, XXH32(data, len, (XXH32_hash_t)seed));
		memcpy(out, c.digest, 4);
		return SBX_OK;
	}
	case SBX_HASH_XXH64: {
		XXH64_canonical_t c;
		XXH64_canonicalFromHash(&c, XXH64(data, len, seed));
		memcpy(out, c.digest, 8);
		return SBX_OK;
	}
	case SBX_HASH_XXH3: {
		XXH64_canonical_t c;
		XXH64_canonicalFromHash(&c, XXH3_64bits_withSeed(data, len, seed));
		memcpy(out, c.digest, 8);
		return SBX_OK;
	}
	}
	return sbx_error_set(SBX_EINVAL, "unknown hash algorithm %d", (int)algo);
}

int sbx_phoenix_salt(const void *data, size_t len, int buckets)
{
	if (buckets < 1 || buckets > 256)
		return sbx_error_set(SBX_EINVAL,
				     "salt buckets must be 1..256 (Phoenix), "
				     "got %d", buckets);
	const uint8_t *p = data;
	uint32_t h = 1; /* unsigned arithmetic = Java int wrap-around */
	for (size_t i = 0; i < len; i++)
		h = 31 * h + (uint32_t)(int32_t)(int8_t)p[i];
	int32_t sh = (int32_t)h;
	int32_t r = sh % buckets; /* C99 %: truncates toward zero, as Java */
	return r < 0 ? -r : r;
}

/* ---- names of the hashes in the key design language ---- */

static const struct {
	const char *name;
	sbx_hash_algo algo;
} HASHES[] = {
	{"md5", SBX_HASH_MD5},         {"murmur3", SBX_HASH_MURMUR3_32},
	{"murmur3_128", SBX_HASH_MURMUR3_128}, {"xxh32", SBX_HASH_XXH32},
	{"xxh64", SBX_HASH_XXH64},     {"xxh3", SBX_HASH_XXH3},
};

bool kd_hash_from_name(const char *name, sbx_hash_algo *algo)
{
	for (size_t i = 0; i < sizeof HASHES / sizeof *HASHES; i++)
		if (!strcmp(name, HASHES[i].name)) {
			*algo = HASHES[i].algo;
			return true;
		}
	return false;
}

const char *kd_hash_name(sbx_hash_algo algo)
{
	for (size_t i = 0; i < sizeof HASHES / sizeof *HASHES; i++)
		if (HASHES[i].algo == algo)
			return HASHES[i].name;
	return "?";
}
