// Package hashslot is the one home of Redis Cluster's key hashing: which
// of the 16384 hash slots a key lives in. Locks check with it that their
// keys share a slot; the Redis Cluster provider finds the master of a
// lock's key with it.
package hashslot

import "strings"

// Count is the number of hash slots of a Redis Cluster.
const Count = 16384

// Of is the hash slot of key, as the server computes it (CLUSTER
// KEYSLOT): CRC16-XMODEM of the key modulo 16384, where a key holding a
// non-empty "{...}" hashes only what lies between its first '{' and the
// first '}' after it, so that keys sharing a tag share a slot. "{}"
// (empty) or an unclosed '{' hash the whole key.
func Of(key string) int {
	if open := strings.IndexByte(key, '{'); open >= 0 {
		if n := strings.IndexByte(key[open+1:], '}'); n > 0 {
			key = key[open+1 : open+1+n]
		}
	}
	return int(crc16(key) % Count)
}

// crc16 is CRC16-XMODEM (polynomial 0x1021, initial value 0, no
// reflection), the checksum Redis Cluster hashes keys with.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
