package python_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/clients/python"
	"github.com/lockstorm/lockstorm/protocol"
)

// ttl is the lease TTL of the contract tests, in milliseconds: long
// enough that a lease does not expire while a loaded machine starts the
// next Python process.
const ttl = 2000

// extends reports whether a lock offers extend (the seed's fair lock does not).
func extends(lock string) bool { return lock != "py-seed-fair" }

// Every Python lock keeps the protocol's contract against a real
// redis-server: a grant carries its token (as stored under the key) and
// a validity within the TTL; a second client cannot take a held key;
// release is ok once and then fail; extend is ok while held and fail
// once the key is gone.
func TestLockContract(t *testing.T) {
	for _, lock := range python.Locks() {
		t.Run(lock, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c1 := startClient(t, lock, []string{node.Addr}, ttl)
			c2 := startClient(t, lock, []string{node.Addr}, ttl)
			k := key(t)

			a := c1.acquire(k, ttl, 0)
			if a.Type != protocol.TypeOK || a.Token == "" || a.ValidityMillis <= 0 || a.ValidityMillis > ttl || len(a.Nodes) != 1 || a.Nodes[0] != "n1" {
				t.Fatalf("acquire: %+v, want ok with a token, validity in (0, %d] and nodes [n1]", a, ttl)
			}
			if v := node.C.Get(ctx, k).Val(); v != a.Token {
				t.Fatalf("the key holds %q, the acquire answered token %q", v, a.Token)
			}
			if b := c2.acquire(k, ttl, 200); b.Type != protocol.TypeFail {
				t.Fatalf("a second client's acquire of a held key: %+v, want fail", b)
			}
			if e := c1.extend(k, a.Token); extends(lock) && (e.Type != protocol.TypeOK || e.ValidityMillis <= 0 || e.ValidityMillis > ttl) {
				t.Fatalf("extend: %+v, want ok with validity in (0, %d]", e, ttl)
			} else if !extends(lock) && e.Type != protocol.TypeFail {
				t.Fatalf("extend of a lock without extend: %+v, want fail", e)
			}
			if r := c1.release(k, a.Token); r.Type != protocol.TypeOK {
				t.Fatalf("release: %+v", r)
			}
			if err := node.C.Get(ctx, k).Err(); err != redis.Nil {
				t.Fatalf("after the release GET %s: %v, want nil (no key)", k, err)
			}
			if r := c1.release(k, a.Token); r.Type != protocol.TypeFail {
				t.Fatalf("second release: %+v, want fail", r)
			}

			// The key gone behind the holder's back (expired, deleted): not held.
			b := c2.acquire(k, ttl, 0)
			if b.Type != protocol.TypeOK || b.Token == a.Token {
				t.Fatalf("acquire after the release: %+v, want ok with a new token", b)
			}
			node.C.Del(ctx, k)
			if e := c2.extend(k, b.Token); e.Type != protocol.TypeFail {
				t.Fatalf("extend of a deleted key: %+v, want fail", e)
			}
			if r := c2.release(k, b.Token); r.Type != protocol.TypeFail {
				t.Fatalf("release of a deleted key: %+v, want fail", r)
			}
		})
	}
}

// Requests run concurrently: a release sent while the same client's
// acquire of the key waits is served, and the waiting acquire then gets
// the lock. A client serving one request at a time would answer the
// acquire fail after its timeout, never ok.
func TestRequestsRunConcurrently(t *testing.T) {
	c := startClient(t, "py-seed-single", []string{node.Addr}, ttl)
	k := key(t)
	a := c.acquire(k, ttl, 0)
	if a.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", a)
	}
	waiting := c.send(protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: ttl, TimeoutMillis: 3000})
	if r := c.release(k, a.Token); r.Type != protocol.TypeOK {
		t.Fatalf("release while an acquire waits: %+v", r)
	}
	if b := c.answer(waiting); b.Type != protocol.TypeOK || b.Token == a.Token {
		t.Fatalf("the waiting acquire: %+v, want ok with a new token", b)
	}
}

// A malformed line is answered fail when its id can be read, and the
// client goes on serving.
func TestMalformedRequestAnsweredFail(t *testing.T) {
	c := startClient(t, "py-seed-single", []string{node.Addr}, ttl)
	for _, line := range []string{
		"not json\n",
		`{"id":900,"op":"lock","key":"k"}` + "\n",
		`{"id":901,"op":"acquire","key":"k","ttl_ms":500,"colour":"red"}` + "\n",
	} {
		if _, err := c.stdinW.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	// The harness side (Conn) never sent ids 900 and 901: their answers
	// are errors there, which is how they are seen here.
	for range 2 {
		r := <-c.lines
		if r.err == nil || r.line.Answer == nil || r.line.Answer.Type != protocol.TypeFail {
			t.Fatalf("answer to a malformed line: %+v, want fail (unknown to Conn)", r)
		}
	}
	if a := c.acquire(key(t), ttl, 0); a.Type != protocol.TypeOK {
		t.Fatalf("acquire after malformed lines: %+v", a)
	}
}

// An acquire whose ttl_ms differs from LOCKSTORM_TTL_MS fails.
func TestAcquireWithAnotherTTLFails(t *testing.T) {
	c := startClient(t, "py-seed-single", []string{node.Addr}, ttl)
	if a := c.acquire(key(t), 2*ttl, 0); a.Type != protocol.TypeFail {
		t.Fatalf("acquire with ttl_ms %d: %+v, want fail", 2*ttl, a)
	}
}

// BenchmarkAcquireRelease is one acquire and one release of a free key by
// a Python client, per lock: the protocol's round trips plus the lock's
// own.
func BenchmarkAcquireRelease(b *testing.B) {
	for _, lock := range python.Locks() {
		b.Run(lock, func(b *testing.B) {
			c := startClient(b, lock, []string{node.Addr}, ttl)
			k := "bench-" + lock
			b.ResetTimer()
			for range b.N {
				a := c.acquire(k, ttl, 0)
				if a.Type != protocol.TypeOK {
					b.Fatalf("acquire: %+v", a)
				}
				if r := c.release(k, a.Token); r.Type != protocol.TypeOK {
					b.Fatalf("release: %+v", r)
				}
			}
		})
	}
}
