package resource

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The line protocol between Client and Server: a request is a command and
// its arguments separated by spaces; a reply is "OK", "OK n", "PONG",
// "STALE max" (a fencing token below max was rejected) or "ERR syntax".

// ErrStale is returned when the resource rejected a write or a fenced read
// for carrying a fencing token lower than one it already accepted. The
// request certainly did not take effect (a rejected read does not raise
// the key's highest token).
var ErrStale = errors.New("resource: stale fencing token")

// ErrBadKey is returned for a key that is empty or holds whitespace.
var ErrBadKey = errors.New("resource: key must be non-empty without whitespace")

// errSyntax is the reply to a request the server does not understand.
var errSyntax = errors.New("ERR syntax")

func checkKey(key string) error {
	if key == "" || strings.ContainsAny(key, " \t\r\n") {
		return ErrBadKey
	}
	return nil
}

// okReply is "OK n".
func okReply(n int64) string { return "OK " + strconv.FormatInt(n, 10) }

// staleReply is the rejection of a token below max.
func staleReply(max int64) string { return "STALE " + strconv.FormatInt(max, 10) }

// parseOK reads a reply: its number (0 for a bare "OK"), ErrStale, or an
// error for anything else.
func parseOK(reply string) (int64, error) {
	f := strings.Fields(reply)
	switch {
	case len(f) >= 1 && f[0] == "STALE":
		return 0, ErrStale
	case len(f) == 2 && f[0] == "OK":
		return strconv.ParseInt(f[1], 10, 64)
	case len(f) == 1 && f[0] == "OK":
		return 0, nil
	}
	return 0, fmt.Errorf("resource: unexpected reply %q", reply)
}

// parseInts reads integer arguments; false if one is not an integer.
func parseInts(args []string) ([]int64, bool) {
	out := make([]int64, 0, len(args))
	for _, a := range args {
		v, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}
