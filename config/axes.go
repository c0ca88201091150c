package config

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Axis is a duration setting that one command takes as one value and a
// sweep as a comma-separated list, one cell per value (--ttl, --pause),
// with the same meaning and rule everywhere.
type Axis struct {
	Name string
	// Help says what one value means.
	Help string
	// Check refuses a bad value in one line naming the flag.
	Check func(time.Duration) error
}

// Axes is the table of the axis settings.
func Axes() []Axis {
	return []Axis{
		{Name: "ttl", Help: runSettingHelp("ttl"), Check: CheckTTL},
		{Name: "pause", Help: "length of each client pause of the lock holder (all its links frozen, or its process stopped); 0 means no pause, so no faults", Check: func(d time.Duration) error {
			if d < 0 {
				return fmt.Errorf("--pause must not be negative (0 means no pause), got %v", d)
			}
			return nil
		}},
	}
}

// CheckTTL refuses a lease TTL below 10ms.
func CheckTTL(d time.Duration) error {
	if d < 10*time.Millisecond {
		return fmt.Errorf("--ttl must be a duration of at least 10ms, got %v", d)
	}
	return nil
}

// AxisOf is the axis setting name.
func AxisOf(name string) Axis {
	for _, a := range Axes() {
		if a.Name == name {
			return a
		}
	}
	panic("config: no axis " + name)
}

// AddAxisListFlag binds the axis name as a sweep's list to p.
func AddAxisListFlag(fs *pflag.FlagSet, p *string, name, def string) {
	fs.StringVar(p, name, def, "comma-separated values, one cell each: "+AxisOf(name).Help)
}

// AddAxisFlag binds the axis name as one duration to p; def describes
// the default 0 stands for.
func AddAxisFlag(fs *pflag.FlagSet, p *time.Duration, name, def string) {
	usage := AxisOf(name).Help
	if def != "" {
		usage += " (default " + def + ")"
	}
	fs.DurationVar(p, name, 0, usage)
}
