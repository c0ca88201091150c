package external

import "testing"

// The loopback rule: loopback addresses always pass, others only when
// explicitly allowed; malformed addresses never.
func TestExternalAddrAllowed(t *testing.T) {
	for _, tc := range []struct {
		addr  string
		allow bool
		ok    bool
	}{
		{"127.0.0.1:6379", false, true},
		{"localhost:6379", false, true},
		{"[::1]:6379", false, true},
		{"10.0.0.5:6379", false, false},
		{"10.0.0.5:6379", true, true},
		{"redis.internal:6379", true, true},
		{"no-port", true, false},
	} {
		if err := externalAddrAllowed("node", tc.addr, tc.allow); (err == nil) != tc.ok {
			t.Errorf("externalAddrAllowed(%q, allow=%v) = %v, want ok=%v", tc.addr, tc.allow, err, tc.ok)
		}
	}
}
