package history

import "math"

// decodeFast decodes one record in the form appendJSON writes (any
// spacing or field order) without reflection. It reports false, op in any
// state, for anything else (an unknown field, an escape, non-ASCII, null,
// an empty list, a non-integer, trailing data), for encoding/json to
// decode. intern (nil: allocate) gives a repetitive field's string.
func decodeFast(b []byte, op *Op, intern func([]byte) string) bool {
	d := fastDecoder{b: b, intern: intern}
	d.space()
	if !d.byte('{') {
		return false
	}
	d.space()
	if d.byte('}') {
		return d.end()
	}
	for {
		d.space()
		name, ok := d.raw()
		if !ok {
			return false
		}
		d.space()
		if !d.byte(':') {
			return false
		}
		d.space()
		if !d.field(name, op) {
			return false
		}
		d.space()
		if d.byte(',') {
			continue
		}
		if d.byte('}') {
			return d.end()
		}
		return false
	}
}

type fastDecoder struct {
	b      []byte
	i      int
	intern func([]byte) string
}

func (d *fastDecoder) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

func (d *fastDecoder) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// end reports whether only spaces follow.
func (d *fastDecoder) end() bool {
	d.space()
	return d.i == len(d.b)
}

// raw reads a string of printable ASCII without escapes and returns its
// bytes.
func (d *fastDecoder) raw() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x7f:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

func (d *fastDecoder) str(shared bool) (string, bool) {
	b, ok := d.raw()
	if !ok {
		return "", false
	}
	if shared && d.intern != nil {
		return d.intern(b), true
	}
	return string(b), true
}

// int reads a JSON integer (no fraction, no exponent) that fits int64.
func (d *fastDecoder) int() (int64, bool) {
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > 1 && d.b[digits] == '0' {
		return 0, false
	}
	if d.i < len(d.b) {
		switch d.b[d.i] {
		case '.', 'e', 'E':
			return 0, false
		}
	}
	// negatively: -9223372036854775808 fits, its opposite does not
	var v int64
	for _, c := range d.b[digits:d.i] {
		x := int64(c - '0')
		if n > 18 && v < (math.MinInt64+x)/10 { // 18 digits always fit
			return 0, false // beyond int64: encoding/json refuses it
		}
		v = v*10 - x
	}
	if d.b[start] != '-' {
		if v == math.MinInt64 {
			return 0, false
		}
		v = -v
	}
	return v, true
}

// list reads a non-empty list of strings.
func (d *fastDecoder) list() ([]string, bool) {
	if !d.byte('[') {
		return nil, false
	}
	var out []string
	for {
		d.space()
		s, ok := d.str(true)
		if !ok {
			return nil, false
		}
		out = append(out, s)
		d.space()
		if d.byte(']') {
			return out, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

// field decodes the value of the field name into op.
func (d *fastDecoder) field(name []byte, op *Op) bool {
	var ok bool
	switch string(name) {
	case "index":
		op.Index, ok = d.int()
	case "time":
		op.Time, ok = d.int()
	case "process":
		var v int64
		v, ok = d.int()
		op.Process = int(v)
	case "fence":
		op.Fence, ok = d.int()
	case "value":
		op.Value, ok = d.int()
	case "ttl":
		op.TTL, ok = d.int()
	case "validity":
		op.Validity, ok = d.int()
	case "type":
		var s string
		s, ok = d.str(true)
		op.Type = Type(s)
	case "f":
		op.F, ok = d.str(true)
	case "key":
		op.Key, ok = d.str(true)
	case "client":
		op.Client, ok = d.str(true)
	case "fault":
		op.Fault, ok = d.str(true)
	case "token":
		op.Token, ok = d.str(false)
	case "detail":
		op.Detail, ok = d.str(false)
	case "error":
		op.Error, ok = d.str(true)
	case "nodes":
		op.Nodes, ok = d.list()
	case "clients":
		op.Clients, ok = d.list()
	}
	return ok
}
