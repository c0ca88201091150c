package harness

import "runtime/debug"

// commit ("abc123def456", "+dirty" added when changed) is stamped by the
// Makefile (-ldflags -X) for builds where Go did not record it.
var commit string

// Version is lockstorm's module version ("(devel)" from a checkout), then
// the commit it was built from, "+dirty" when the checkout had changes.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	switch {
	case rev != "":
		v += " " + rev[:min(12, len(rev))]
		if dirty {
			v += "+dirty"
		}
	case commit != "":
		v += " " + commit
	}
	return v
}
