package harness

import (
	"runtime/debug"
)

// commit is the commit the binary was built from, stamped by the
// Makefile (-ldflags -X), for builds where Go did not record it
// (GOFLAGS=-buildvcs=false, a tree without .git): "abc123def456" or
// "abc123def456+dirty".
var commit string

// Version is lockstorm's version as the binary knows it: the module
// version ("(devel)" when built from a checkout), then the commit it was
// built from and "+dirty" when the checkout had changes, when Go recorded
// them. `lockstorm --version` prints it and test.json keeps it.
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
