package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Operations a request may ask for.
const (
	OpAcquire = "acquire"
	OpRelease = "release"
	OpExtend  = "extend"
)

// Answer types: ok (done), fail (certainly not done), info (outcome
// unknown).
const (
	TypeOK   = "ok"
	TypeFail = "fail"
	TypeInfo = "info"
)

// Events a client sends unasked.
const (
	EventRenewed = "renewed"
	EventLost    = "lost"
)

// ErrMalformed wraps every decoding and validation error.
var ErrMalformed = errors.New("protocol: malformed line")

// Request is one line the harness writes to a client's stdin.
type Request struct {
	// ID is positive and unique among the requests of one client process.
	ID int64  `json:"id"`
	Op string `json:"op"`
	// Key is the lock's key.
	Key string `json:"key"`
	// TTLMillis is the lease time-to-live in milliseconds (acquire).
	TTLMillis int64 `json:"ttl_ms,omitempty"`
	// TimeoutMillis bounds the operation in milliseconds: how long an
	// acquire keeps retrying before it answers fail, how long a release or
	// extend may take before its outcome is unknown. 0: the client's own
	// default.
	TimeoutMillis int64 `json:"timeout_ms,omitempty"`
	// Token is the token an acquire answered (release, extend).
	Token string `json:"token,omitempty"`
}

// Answer is a client's one reply to a request id.
type Answer struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
	// Token and Fence (0 = none) identify the lease (ok acquire).
	Token string `json:"token,omitempty"`
	Fence int64  `json:"fence,omitempty"`
	// ValidityMillis is the lease's validity remaining at the answer, in
	// milliseconds (ok acquire, ok extend).
	ValidityMillis int64 `json:"validity_ms,omitempty"`
	// MonoNS is CLOCK_MONOTONIC (ns) when ValidityMillis was measured
	// (optional). The harness reads an answer some time after it was
	// written; with MonoNS it dates the validity at the measurement, not
	// at its receipt, so a busy harness does not stretch a lease.
	MonoNS int64 `json:"mono_ns,omitempty"`
	// Nodes names the nodes that granted the lease (ok acquire; optional).
	Nodes []string `json:"nodes,omitempty"`
	// Error says why (fail, info).
	Error string `json:"error,omitempty"`
}

// Event is a line a client sends unasked: its watchdog renewed a lease
// (ValidityMillis remaining at the event) or knows the lease lost (Error
// says why).
type Event struct {
	Event          string `json:"event"`
	Key            string `json:"key"`
	Token          string `json:"token"`
	ValidityMillis int64  `json:"validity_ms,omitempty"`
	MonoNS         int64  `json:"mono_ns,omitempty"` // as in Answer
	Error          string `json:"error,omitempty"`
}

// Encode is v as one line of JSON, newline included.
func Encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("protocol: encode: " + err.Error()) // only plain fields: cannot happen
	}
	return append(b, '\n')
}

// decodeStrict decodes one JSON object, refusing unknown fields.
func decodeStrict(line []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(line))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("%w: %v: %q", ErrMalformed, err, clip(line))
	}
	if d.More() {
		return fmt.Errorf("%w: more than one JSON value: %q", ErrMalformed, clip(line))
	}
	return nil
}

// DecodeRequest decodes and validates a request line.
func DecodeRequest(line []byte) (Request, error) {
	var r Request
	if err := decodeStrict(line, &r); err != nil {
		return r, err
	}
	return r, r.Validate()
}

// Validate checks the fields an operation needs.
func (r Request) Validate() error {
	switch {
	case r.ID <= 0:
		return fmt.Errorf("%w: request id %d is not positive", ErrMalformed, r.ID)
	case r.Op != OpAcquire && r.Op != OpRelease && r.Op != OpExtend:
		return fmt.Errorf("%w: request %d: unknown op %q (acquire, release, extend)", ErrMalformed, r.ID, r.Op)
	case r.Key == "":
		return fmt.Errorf("%w: request %d: no key", ErrMalformed, r.ID)
	case r.TTLMillis < 0 || r.TimeoutMillis < 0:
		return fmt.Errorf("%w: request %d: negative ttl_ms or timeout_ms", ErrMalformed, r.ID)
	case r.Op != OpAcquire && r.Token == "":
		return fmt.Errorf("%w: request %d: %s without a token", ErrMalformed, r.ID, r.Op)
	}
	return nil
}

// Line is one decoded line of a client's stdout: an answer or an event.
type Line struct {
	Answer *Answer
	Event  *Event
}

// DecodeLine decodes and validates a line of a client's stdout.
func DecodeLine(line []byte) (Line, error) {
	var probe struct {
		Event *string `json:"event"`
	}
	if err := json.Unmarshal(line, &probe); err != nil {
		return Line{}, fmt.Errorf("%w: %v: %q", ErrMalformed, err, clip(line))
	}
	if probe.Event != nil {
		var e Event
		if err := decodeStrict(line, &e); err != nil {
			return Line{}, err
		}
		if e.Event != EventRenewed && e.Event != EventLost {
			return Line{}, fmt.Errorf("%w: unknown event %q (renewed, lost)", ErrMalformed, e.Event)
		}
		if e.Token == "" {
			return Line{}, fmt.Errorf("%w: %s event without a token", ErrMalformed, e.Event)
		}
		return Line{Event: &e}, nil
	}
	var a Answer
	if err := decodeStrict(line, &a); err != nil {
		return Line{}, err
	}
	return Line{Answer: &a}, a.Validate()
}

// Validate checks an answer's id, type and validity.
func (a Answer) Validate() error {
	var problem string
	if a.ID <= 0 {
		problem = fmt.Sprintf("answer id %d is not positive", a.ID)
	} else if !slices.Contains([]string{TypeOK, TypeFail, TypeInfo}, a.Type) {
		problem = fmt.Sprintf("answer %d: unknown type %q (ok, fail, info)", a.ID, a.Type)
	} else if a.ValidityMillis < 0 {
		problem = fmt.Sprintf("answer %d: negative validity_ms", a.ID)
	} else if a.MonoNS < 0 {
		problem = fmt.Sprintf("answer %d: negative mono_ns", a.ID)
	} else {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrMalformed, problem)
}

// clip shortens a line quoted in an error message.
func clip(line []byte) []byte {
	if len(line) > 120 {
		return append(line[:117:117], "..."...)
	}
	return line
}
