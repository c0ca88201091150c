package rediscluster

import "testing"

func TestSlotOf(t *testing.T) {
	for _, c := range []struct {
		key  string
		slot int
	}{
		{"123456789", 0x31C3},      // the CRC-16/XMODEM check value
		{"foo", 12182},             // Redis Cluster specification
		{"{foo}.bar", 12182},       // the tag alone is hashed
		{"x{foo}y{bar}", 12182},    // the first tag
		{"{}foo", SlotOf("{}foo")}, // an empty tag hashes the whole key
		{"", 0},
	} {
		if got := SlotOf(c.key); got != c.slot {
			t.Errorf("SlotOf(%q) = %d, want %d", c.key, got, c.slot)
		}
	}
	if SlotOf("{}foo") == SlotOf("foo") {
		t.Error(`SlotOf("{}foo") hashed only "foo"`)
	}
}

func TestParseNodes(t *testing.T) {
	out := `07c37dfeb235213a872192d90877d0cd55635b91 127.0.0.1:30004@31004,host4 slave e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 0 1426238317239 4 connected
67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1 127.0.0.1:30002@31002 master - 0 1426238316232 2 connected 5461-10922
e7d1eecce10fd6bb5eb35b9f99a514335d9ba9ca 127.0.0.1:30001@31001 myself,master - 0 0 1 connected 0-5460 [93->-67ed2db8d677e59ec4a4cefb06858cf2a1a89fa1]
6ec23923021cf3ffec47632106199cb7f496ce01 127.0.0.1:30005@31005 master,fail? - 1426238316232 1426238315000 5 disconnected 10923 10924-16383`
	ps, err := parseNodes(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 4 {
		t.Fatalf("%d lines, want 4", len(ps))
	}
	r, m, me, f := ps[0], ps[1], ps[2], ps[3]
	if r.addr != "127.0.0.1:30004" || r.busPort != 31004 || r.isMaster() || r.masterID != me.id || r.epoch != 4 {
		t.Errorf("replica line: %+v", r)
	}
	if !m.isMaster() || countSlots(m.slots) != 10922-5461+1 || m.masterID != "" {
		t.Errorf("master line: %+v", m)
	}
	if !me.has("myself") || countSlots(me.slots) != 5461 {
		t.Errorf("own line (a migrating slot stays with its owner): %+v", me)
	}
	if f.connected || !f.has("fail?") || countSlots(f.slots) != Slots-10923 {
		t.Errorf("failing line: %+v", f)
	}
	if owner := viewOwner(ps, 93); owner != me.id {
		t.Errorf("owner of slot 93: %s, want %s", owner, me.id)
	}
	if _, err := parseNodes("abc 127.0.0.1:1 master"); err == nil {
		t.Error("a short line parsed")
	}
}
