package protocol_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/protocol"
)

// Garbage on either side decodes to an error wrapping ErrMalformed that
// says what is wrong.
func TestProtocolDecodeErrors(t *testing.T) {
	requests := map[string]string{
		"garbage":                                 "invalid character",
		`{"id":1,"op":"acquire"}`:                 "no key",
		`{"id":-3,"op":"acquire","key":"k"}`:      "not positive",
		`{"id":1,"op":"release","key":"k"}`:       "without a token",
		`{"id":1,"op":"acquire","key":"k","x":1}`: `unknown field "x"`,
		`{"id":1,"op":"acquire","key":"k"} {}`:    "more than one JSON value",
	}
	for line, want := range requests {
		if _, err := protocol.DecodeRequest([]byte(line)); !errors.Is(err, protocol.ErrMalformed) || !strings.Contains(err.Error(), want) {
			t.Errorf("request %s: error %v, want one with %q", line, err, want)
		}
	}
	lines := map[string]string{
		"}{":                                    "invalid character",
		`{"id":1,"type":"maybe"}`:               `unknown type "maybe"`,
		`{"id":0,"type":"ok"}`:                  "not positive",
		`{"id":1,"type":"ok","validity_ms":-1}`: "negative validity_ms",
		`{"event":"renewed"}`:                   "without a token",
		`{"event":"sneezed","token":"t"}`:       `unknown event "sneezed"`,
		`{"id":1,"type":"ok","tokn":"t"}`:       `unknown field "tokn"`,
	}
	for line, want := range lines {
		if _, err := protocol.DecodeLine([]byte(line)); !errors.Is(err, protocol.ErrMalformed) || !strings.Contains(err.Error(), want) {
			t.Errorf("line %s: error %v, want one with %q", line, err, want)
		}
	}
}

// Every id is answered once: an unknown id and a second answer are
// errors, and an id cannot be sent twice.
func TestProtocolPendingAnswersOnce(t *testing.T) {
	p := protocol.NewPending()
	req := protocol.Request{ID: 5, Op: protocol.OpAcquire, Key: "k"}
	if err := p.Sent(req); err != nil {
		t.Fatal(err)
	}
	if err := p.Sent(req); err == nil || !strings.Contains(err.Error(), "used twice") {
		t.Errorf("id sent twice: %v", err)
	}
	if _, err := p.Answered(protocol.Answer{ID: 6, Type: protocol.TypeOK}); err == nil || !strings.Contains(err.Error(), "unknown request id 6") {
		t.Errorf("unknown id: %v", err)
	}
	if got, err := p.Answered(protocol.Answer{ID: 5, Type: protocol.TypeFail}); err != nil || got.Key != "k" || p.Open() != 0 {
		t.Errorf("answer: %+v %v, open %d", got, err, p.Open())
	}
	if _, err := p.Answered(protocol.Answer{ID: 5, Type: protocol.TypeOK}); err == nil || !strings.Contains(err.Error(), "duplicate answer to request 5") {
		t.Errorf("second answer: %v", err)
	}
	if err := p.Sent(req); err == nil {
		t.Error("an answered id was accepted again")
	}
}

// An answer and an event encode to lines that decode back.
func TestProtocolEncodeDecode(t *testing.T) {
	a := protocol.Answer{ID: 7, Type: protocol.TypeOK, Token: "t", Fence: 12, ValidityMillis: 480}
	l, err := protocol.DecodeLine(protocol.Encode(a))
	if err != nil || l.Answer == nil || l.Answer.Fence != 12 || l.Answer.ValidityMillis != 480 || l.Event != nil {
		t.Fatalf("round trip of %+v: %+v %v", a, l, err)
	}
	if got := string(protocol.Encode(a)); got != `{"id":7,"type":"ok","token":"t","fence":12,"validity_ms":480}`+"\n" {
		t.Errorf("encoded %s", got)
	}
	e := protocol.Event{Event: protocol.EventLost, Key: "k", Token: "t", Error: "gone"}
	if l, err := protocol.DecodeLine(protocol.Encode(e)); err != nil || l.Event == nil || *l.Event != e {
		t.Fatalf("round trip of %+v: %+v %v", e, l, err)
	}
}
