package history

import (
	"encoding/json"
	"strconv"
)

// appendJSON appends o as one JSON object (no newline) to b. It writes the
// same form encoding/json would for Op, without reflection, so that the
// recorder stays cheap under load.
func appendJSON(b []byte, o *Op) []byte {
	b = append(b, `{"index":`...)
	b = strconv.AppendInt(b, o.Index, 10)
	b = append(b, `,"time":`...)
	b = strconv.AppendInt(b, o.Time, 10)
	b = append(b, `,"type":`...)
	b = appendQuote(b, string(o.Type))
	b = append(b, `,"process":`...)
	b = strconv.AppendInt(b, int64(o.Process), 10)
	b = appendString(b, `,"client":`, o.Client)
	b = append(b, `,"f":`...)
	b = appendQuote(b, o.F)
	b = appendString(b, `,"key":`, o.Key)
	b = appendString(b, `,"token":`, o.Token)
	b = appendInt(b, `,"fence":`, o.Fence)
	b = appendList(b, `,"nodes":`, o.Nodes)
	b = appendInt(b, `,"value":`, o.Value)
	b = appendInt(b, `,"ttl":`, o.TTL)
	b = appendInt(b, `,"validity":`, o.Validity)
	b = appendString(b, `,"fault":`, o.Fault)
	b = appendList(b, `,"clients":`, o.Clients)
	b = appendString(b, `,"detail":`, o.Detail)
	b = appendString(b, `,"error":`, o.Error)
	return append(b, '}')
}

func appendList(b []byte, name string, xs []string) []byte {
	if len(xs) == 0 {
		return b
	}
	b = append(b, name...)
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendQuote(b, x)
	}
	return append(b, ']')
}

func appendString(b []byte, name, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, name...)
	return appendQuote(b, s)
}

func appendInt(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	b = append(b, name...)
	return strconv.AppendInt(b, v, 10)
}

// appendQuote quotes s as a JSON string: plain printable ASCII without
// quotes or backslashes (nearly every field) as is, anything else by
// encoding/json.
func appendQuote(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			q, _ := json.Marshal(s) // valid JSON, which strconv's \x escapes are not
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
