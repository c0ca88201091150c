package protocol_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

const ttl = 500 * time.Millisecond

// Acquire, extend and release of a built-in lock through Serve; a second
// release of the same token is a certain failure.
func TestProtocolRoundTrip(t *testing.T) {
	lock, _ := newLock(t, "single", "c1", ttl)
	p, _ := serve(t, lock, protocol.Config{TTL: ttl})
	k := key(t)
	a := p.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: ttl.Milliseconds()})
	if a.Type != protocol.TypeOK || a.Token == "" || a.ValidityMillis <= 0 || a.ValidityMillis > ttl.Milliseconds() {
		t.Fatalf("acquire: %+v; want ok with a token and 0 < validity_ms <= %d", a, ttl.Milliseconds())
	}
	if len(a.Nodes) != 1 || a.Nodes[0] != "n1" {
		t.Errorf("acquire nodes %v, want [n1]", a.Nodes)
	}
	time.Sleep(50 * time.Millisecond)
	e := p.call(t, protocol.Request{Op: protocol.OpExtend, Key: k, Token: a.Token})
	if e.Type != protocol.TypeOK || e.ValidityMillis <= ttl.Milliseconds()-50 {
		t.Fatalf("extend: %+v; want ok with validity back near %d ms", e, ttl.Milliseconds())
	}
	if r := p.call(t, protocol.Request{Op: protocol.OpRelease, Key: k, Token: a.Token}); r.Type != protocol.TypeOK {
		t.Fatalf("release: %+v, want ok", r)
	}
	r := p.call(t, protocol.Request{Op: protocol.OpRelease, Key: k, Token: a.Token})
	if r.Type != protocol.TypeFail || !strings.Contains(r.Error, "not held") {
		t.Fatalf("second release: %+v, want fail not held", r)
	}
	if r := p.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TTLMillis: 100}); r.Type != protocol.TypeFail || !strings.Contains(r.Error, "ttl_ms 100") {
		t.Fatalf("acquire with another TTL: %+v, want fail naming ttl_ms", r)
	}
}

// While one client holds the lock a second client's acquire fails (not
// obtained); after the release it succeeds.
func TestProtocolSecondClientFailsWhileHeld(t *testing.T) {
	l1, _ := newLock(t, "single", "c1", ttl)
	l2, _ := newLock(t, "single", "c2", ttl)
	p1, _ := serve(t, l1, protocol.Config{TTL: ttl})
	p2, _ := serve(t, l2, protocol.Config{TTL: ttl})
	k := key(t)
	a := p1.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k})
	if a.Type != protocol.TypeOK {
		t.Fatalf("first acquire: %+v", a)
	}
	b := p2.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TimeoutMillis: 100})
	if b.Type != protocol.TypeFail || !strings.Contains(b.Error, "not obtained") {
		t.Fatalf("second acquire while held: %+v, want fail not obtained", b)
	}
	p1.call(t, protocol.Request{Op: protocol.OpRelease, Key: k, Token: a.Token})
	if b := p2.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k, TimeoutMillis: 300}); b.Type != protocol.TypeOK || b.Token == a.Token {
		t.Fatalf("second acquire after release: %+v, want ok with a new token", b)
	}
}

// Garbage is logged; a bad line with a readable id is answered fail; a
// good request afterwards is served; extend of a lock without Extend fails.
// A garbage-writing client is covered by Conn's decoding errors (see
// TestProtocolDecodeErrors).
func TestProtocolGarbageLines(t *testing.T) {
	lock, _ := newLock(t, "single", "c1", ttl)
	p, log := serve(t, noExtend{lock}, protocol.Config{TTL: ttl})
	k := key(t)
	for _, line := range []string{"not json", `{"op":"acquire"}`, "[1,2]"} {
		if _, err := p.w.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	p.next.Store(40)
	bad := p.call(t, protocol.Request{Op: "acquire", Key: k, Token: "x", TTLMillis: 0}) // valid: token ignored on acquire
	if bad.Type != protocol.TypeOK {
		t.Fatalf("acquire after garbage: %+v", bad)
	}
	if _, err := p.w.Write([]byte(`{"id":77,"op":"steal","key":"k"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	r := p.recv(t)
	if r.err == nil {
		t.Fatalf("answer to an unsent id 77 read without error: %+v", r.line)
	}
	if !strings.Contains(r.err.Error(), "unknown request id 77") {
		t.Errorf("error %q, want unknown request id 77", r.err)
	}
	if e := p.call(t, protocol.Request{Op: protocol.OpExtend, Key: k, Token: bad.Token}); e.Type != protocol.TypeFail || !strings.Contains(e.Error, "not supported") {
		t.Errorf("extend without Extender: %+v, want fail not supported", e)
	}
	for _, want := range []string{`"not json"`, "id 0 is not positive", "cannot unmarshal array", `unknown op "steal"`} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// A renewable lock's watchdog renewals become renewed events, and a
// renewal that finds the key gone becomes a lost event.
func TestProtocolRenewedAndLostEvents(t *testing.T) {
	const short = 300 * time.Millisecond
	lock, _ := newLock(t, "renewable", "c1", short)
	p, _ := serve(t, lock, protocol.Config{TTL: short})
	k := key(t)
	a := p.call(t, protocol.Request{Op: protocol.OpAcquire, Key: k})
	if a.Type != protocol.TypeOK {
		t.Fatalf("acquire: %+v", a)
	}
	ev := nextEvent(t, p)
	if ev.Event != protocol.EventRenewed || ev.Token != a.Token || ev.ValidityMillis <= 0 {
		t.Fatalf("first event %+v, want renewed with validity", ev)
	}
	admin, err := cl.AdminAddr("n1")
	if err != nil {
		t.Fatal(err)
	}
	c := lockimpl.NewClient(admin)
	defer c.Close()
	if err := c.Del(context.Background(), k).Err(); err != nil {
		t.Fatal(err)
	}
	for ev = nextEvent(t, p); ev.Event == protocol.EventRenewed; ev = nextEvent(t, p) {
	}
	if ev.Event != protocol.EventLost || ev.Token != a.Token || !strings.Contains(ev.Error, "lost") {
		t.Fatalf("event after the key was deleted: %+v, want lost", ev)
	}
}

// noExtend hides a lock's Extend: a lock that cannot extend.
type noExtend struct{ lockimpl.Locker }

// nextEvent is the next line, which must be an event.
func nextEvent(t *testing.T, p *peer) protocol.Event {
	t.Helper()
	r := p.recv(t)
	if r.err != nil || r.line.Event == nil {
		t.Fatalf("want an event, got %+v (err %v)", r.line, r.err)
	}
	return *r.line.Event
}

// Requests in flight together are each answered once; a second line with
// an id still in progress is logged and not answered.
func TestProtocolConcurrentRequestsAnsweredOnce(t *testing.T) {
	lock, _ := newLock(t, "single", "c1", ttl)
	p, log := serve(t, lock, protocol.Config{TTL: ttl})
	k := key(t)
	for id := int64(1); id <= 5; id++ {
		if err := p.conn.Send(protocol.Request{ID: id, Op: protocol.OpAcquire, Key: fmt.Sprint(k, id)}); err != nil {
			t.Fatal(err)
		}
	}
	// Key k1 is held now (or soon): id 9 waits on it for 300 ms, and its
	// copy arrives while it is in progress.
	line := `{"id":9,"op":"acquire","key":"` + fmt.Sprint(k, 1) + `","timeout_ms":300}` + "\n"
	time.Sleep(50 * time.Millisecond)
	p.w.Write([]byte(line + line))
	seen := map[int64]int{}
	for range 6 {
		r := p.recv(t)
		if r.line.Answer == nil {
			t.Fatalf("want an answer, got %+v %v", r.line, r.err)
		}
		seen[r.line.Answer.ID]++
	}
	if len(seen) != 6 || seen[9] != 1 || p.conn.Open() != 0 {
		t.Errorf("answers per id %v, open %d; want ids 1-5 and 9 once each", seen, p.conn.Open())
	}
	if !strings.Contains(log.String(), "request id 9 is already in progress") {
		t.Errorf("log lacks the duplicate id 9:\n%s", log)
	}
	select {
	case r := <-p.lines:
		t.Errorf("a seventh line: %+v %v", r.line, r.err)
	case <-time.After(400 * time.Millisecond):
	}
}
