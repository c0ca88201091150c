// Package zoo runs lockstorm's lock zoo: real lock libraries, each an
// entry folder with a zoo.yaml manifest (zoo/README.md is its contract)
// and an adapter speaking the client line protocol. Every cell of an entry
// (a fault, a workload, the verdict its documentation leads one to expect)
// runs for every seed, and the cells make a scoreboard.
package zoo

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/nemesis"
	"github.com/lockstorm/lockstorm/workloads"
)

// ManifestFile is the name of an entry's manifest.
const ManifestFile = "zoo.yaml"

// Renewal modes.
const (
	RenewalNone     = "none"
	RenewalWatchdog = "watchdog"
)

// Expectations of a cell.
const (
	ExpectValid   = "valid"
	ExpectInvalid = "invalid"
)

// Checkers a cell may name in checkers and clean.
var Checkers = []string{"lock", "resource", "exclusion", "liveness", "fencing", "tokens"}

// Manifest is an entry's zoo.yaml. Its keys are a contract: entries are
// also written outside this repository.
type Manifest struct {
	Name     string `yaml:"name"`
	Language string `yaml:"language"`
	Library  string `yaml:"library"`
	Version  string `yaml:"version"`
	Upstream string `yaml:"upstream"`
	// Build is an optional shell command run in the entry's folder.
	Build string `yaml:"build"`
	// Client is the command run for each client slot, in the entry's folder.
	Client string `yaml:"client"`
	// Requires is an optional shell command; when it fails the entry is
	// skipped (a runtime or package is missing).
	Requires string `yaml:"requires"`
	Nodes    int    `yaml:"nodes"`
	// TTL is the lease time-to-live, a Go duration ("500ms").
	TTL string `yaml:"ttl"`
	// Clients is the number of client slots (default DefaultClients).
	Clients int `yaml:"clients"`
	// NodeTimeout is an optional Go duration: the library's bound on one
	// command, when not lockstorm's default (TTL/10); the run's
	// --node-timeout.
	NodeTimeout string `yaml:"node_timeout"`
	// Renewal is RenewalNone or RenewalWatchdog.
	Renewal string `yaml:"renewal"`
	// Fencing is true when the library issues fencing tokens.
	Fencing bool `yaml:"fencing"`
	// Fair is true when the library promises grants in arrival order
	// (config.Fair).
	Fair   bool   `yaml:"fair"`
	Claims string `yaml:"claims"`
	// Settings optionally maps lockstorm's settings (keys ttl and renew)
	// to the library's names for them, for sweep's tables.
	Settings map[string]string `yaml:"settings"`
	Cells    []Cell            `yaml:"cells"`

	ttl, nodeTimeout time.Duration
}

// Cell is one fault (or comma-separated faults) of an entry and what the
// library's documentation leads one to expect under it.
type Cell struct {
	Nemesis  string `yaml:"nemesis" json:"nemesis"`
	Workload string `yaml:"workload" json:"workload"`
	// Fencing makes the resource reject stale tokens in this cell.
	Fencing  bool     `yaml:"fencing" json:"fencing,omitempty"`
	Expect   string   `yaml:"expect" json:"expect"`
	Checkers []string `yaml:"checkers" json:"checkers,omitempty"`
	Clean    []string `yaml:"clean" json:"clean,omitempty"`
	Why      string   `yaml:"why" json:"why"`
	Ref      string   `yaml:"ref" json:"ref,omitempty"`
	// Known is the upstream issue or PR of a bug this cell is expected to
	// show (expect: invalid): the buggy half of a known-bug pair.
	Known string `yaml:"known" json:"known,omitempty"`
	// Fixed is the upstream issue or PR of a known bug whose fix this
	// entry carries: the fixed twin of a known-bug cell.
	Fixed string `yaml:"fixed" json:"fixed,omitempty"`
	// Plan is an optional scripted fault plan (--fault-plan's JSON), a file
	// in the entry's folder, instead of random faults of its kinds.
	Plan string `yaml:"plan" json:"plan,omitempty"`
	// Hold is an optional range of hold times, "MIN-MAX" in Go durations
	// (200ms-1s); default lockstorm's.
	Hold string `yaml:"hold" json:"hold,omitempty"`

	holdMin, holdMax time.Duration
	plan             *nemesis.Plan
	planPath         string
}

// DefaultClients is an entry's client slots when its manifest names none.
const DefaultClients = 4

// Column is the cell's column on the scoreboard: its faults, "+fencing",
// its plan's name ("[renewal]") and its workload when not counter.
func (c Cell) Column() string {
	s := c.Nemesis
	if c.Fencing {
		s += "+fencing"
	}
	if c.Plan != "" {
		s += " [" + strings.TrimSuffix(filepath.Base(c.Plan), ".json") + "]"
	}
	if c.Workload != "counter" {
		s += " (" + c.Workload + ")"
	}
	return s
}

// Entry is a manifest and the folder it was read from.
type Entry struct {
	Manifest
	// Dir is the entry's folder, absolute.
	Dir string
}

// TTLDuration is the manifest's TTL, parsed.
func (m Manifest) TTLDuration() time.Duration { return m.ttl }

// NodeTimeoutDuration is the manifest's node_timeout, parsed; 0 when it
// names none (lockstorm's default).
func (m Manifest) NodeTimeoutDuration() time.Duration { return m.nodeTimeout }

// SettingKeys are the keys a manifest's settings: map may name.
var SettingKeys = []string{"ttl", "renew"}

var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// Load reads every entry of dir (each subfolder holding a zoo.yaml, or dir
// itself), sorted by name; a manifest that breaks the contract is an
// error naming its file, the key and what it allows.
func Load(dir string) ([]Entry, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--dir %s is not a folder of zoo entries", dir)
	}
	var dirs []string
	if _, err := os.Stat(filepath.Join(abs, ManifestFile)); err == nil {
		dirs = append(dirs, abs)
	} else {
		ds, err := os.ReadDir(abs)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			if _, err := os.Stat(filepath.Join(abs, d.Name(), ManifestFile)); err == nil && d.IsDir() {
				dirs = append(dirs, filepath.Join(abs, d.Name()))
			}
		}
	}
	if len(dirs) == 0 {
		return nil, fmt.Errorf("--dir %s holds no zoo entry (a folder with a %s)", dir, ManifestFile)
	}
	var out []Entry
	seen := map[string]string{}
	for _, d := range dirs {
		e, err := loadEntry(d)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[e.Name]; ok {
			return nil, fmt.Errorf("%s and %s both name the entry %q", prev, filepath.Join(d, ManifestFile), e.Name)
		}
		seen[e.Name] = filepath.Join(d, ManifestFile)
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadEntry(dir string) (Entry, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return Entry{}, err
	}
	var m Manifest
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", path, oneLine(err.Error()))
	}
	if err := m.check(dir); err != nil {
		return Entry{}, fmt.Errorf("%s: %v", path, err)
	}
	return Entry{Manifest: m, Dir: dir}, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// check fills defaults and checks every key.
func (m *Manifest) check(dir string) error {
	switch {
	case !namePattern.MatchString(m.Name):
		return fmt.Errorf("name must be lower-case letters, digits, '.', '_' or '-', got %q", m.Name)
	case m.Language == "" || m.Library == "" || m.Version == "" || m.Upstream == "":
		return errors.New("language, library, version and upstream are required")
	case strings.TrimSpace(m.Client) == "":
		return errors.New("client is required: the command run for each client slot")
	case m.Nodes < 1 || m.Nodes > 15:
		return fmt.Errorf("nodes must be 1..15, got %d", m.Nodes)
	case m.Clients < 0 || m.Clients > 64:
		return fmt.Errorf("clients must be 1..64, got %d", m.Clients)
	case strings.TrimSpace(m.Claims) == "":
		return errors.New("claims is required: one line saying what the library's documentation promises")
	case len(m.Cells) == 0:
		return errors.New("cells is empty: an entry needs at least one cell")
	}
	if _, err := config.SplitCommand(m.Client); err != nil {
		return fmt.Errorf("client: %v", err)
	}
	var err error
	if m.ttl, err = time.ParseDuration(m.TTL); err != nil || m.ttl <= 0 {
		return fmt.Errorf("ttl must be a positive duration like 500ms, got %q", m.TTL)
	}
	if m.NodeTimeout != "" {
		if m.nodeTimeout, err = time.ParseDuration(m.NodeTimeout); err != nil || m.nodeTimeout <= 0 {
			return fmt.Errorf("node_timeout must be a positive duration like 1s, got %q", m.NodeTimeout)
		}
	}
	m.Clients = cmp.Or(m.Clients, DefaultClients)
	switch m.Renewal {
	case "":
		m.Renewal = RenewalNone
	case RenewalNone, RenewalWatchdog:
	default:
		return fmt.Errorf("renewal must be %s or %s, got %q", RenewalNone, RenewalWatchdog, m.Renewal)
	}
	for k, v := range m.Settings {
		if !slices.Contains(SettingKeys, k) || strings.TrimSpace(v) == "" {
			return fmt.Errorf("settings maps %s to the library's names of those settings, got %s: %q", strings.Join(SettingKeys, " and "), k, v)
		}
	}
	columns := map[string]bool{}
	for i := range m.Cells {
		c := &m.Cells[i]
		if err := c.check(m.Fencing, dir); err != nil {
			return fmt.Errorf("cells[%d]: %v", i, err)
		}
		if columns[c.Column()] {
			return fmt.Errorf("cells[%d]: a second cell for %s", i, c.Column())
		}
		columns[c.Column()] = true
	}
	return nil
}

func (c *Cell) check(entryFences bool, dir string) error {
	c.Workload = cmp.Or(c.Workload, "counter")
	if !slices.Contains(workloads.Names(), c.Workload) {
		return fmt.Errorf("workload must be one of %s, got %q", strings.Join(workloads.Names(), ", "), c.Workload)
	}
	kinds := strings.Split(c.Nemesis, ",")
	for _, k := range kinds {
		if !slices.Contains(nemesis.Kinds, strings.TrimSpace(k)) {
			return fmt.Errorf("nemesis must be a fault kind (%s) or a comma-separated list of them, got %q", strings.Join(nemesis.Kinds, ", "), c.Nemesis)
		}
	}
	if c.Fencing && !entryFences {
		return errors.New("fencing: true needs an entry with fencing: true (a library that issues tokens)")
	}
	switch c.Expect {
	case ExpectValid:
		if len(c.Checkers) > 0 {
			return errors.New("checkers name what must flag an invalid cell; an expect: valid cell has none")
		}
	case ExpectInvalid:
		if len(c.Checkers) == 0 {
			return errors.New("an expect: invalid cell names the checkers that must flag it (checkers: [resource])")
		}
	default:
		return fmt.Errorf("expect must be %s or %s, got %q", ExpectValid, ExpectInvalid, c.Expect)
	}
	for _, n := range append(slices.Clone(c.Checkers), c.Clean...) {
		if !slices.Contains(Checkers, n) {
			return fmt.Errorf("checkers and clean name checkers among %s, got %q", strings.Join(Checkers, ", "), n)
		}
	}
	for _, n := range c.Clean {
		if slices.Contains(c.Checkers, n) {
			return fmt.Errorf("%s is in both checkers and clean", n)
		}
	}
	if c.Known != "" && c.Expect != ExpectInvalid {
		return errors.New("known: names a bug the cell must show: it needs expect: invalid")
	}
	if c.Fixed != "" && c.Expect == ExpectInvalid && len(c.Clean) == 0 {
		return errors.New("fixed: on an expect: invalid cell needs clean: the checkers the fixed bug would flag")
	}
	for _, u := range []string{c.Known, c.Fixed} {
		if u != "" && !strings.HasPrefix(u, "https://") {
			return fmt.Errorf("known and fixed are upstream URLs (https://...), got %q", u)
		}
	}
	if c.Hold != "" {
		lo, hi, ok := strings.Cut(c.Hold, "-")
		a, err1 := time.ParseDuration(strings.TrimSpace(lo))
		b, err2 := time.ParseDuration(strings.TrimSpace(hi))
		if !ok || err1 != nil || err2 != nil || a <= 0 || b < a {
			return fmt.Errorf("hold must be MIN-MAX durations like 200ms-1s, got %q", c.Hold)
		}
		c.holdMin, c.holdMax = a, b
	}
	if c.Plan != "" {
		if filepath.IsAbs(c.Plan) {
			return fmt.Errorf("plan is a file in the entry's folder, got the absolute path %q", c.Plan)
		}
		c.planPath = filepath.Join(dir, c.Plan)
		p, err := config.LoadFaultPlan(c.planPath)
		if err != nil {
			return fmt.Errorf("plan: %s", strings.TrimPrefix(err.Error(), config.ErrConfig.Error()+": "))
		}
		for i, st := range p.Steps {
			if !slices.ContainsFunc(kinds, func(k string) bool { return strings.TrimSpace(k) == st.Fault.Kind }) {
				return fmt.Errorf("plan %s: step %d is a %s, which the cell's nemesis (%s) does not name", c.Plan, i, st.Fault.Kind, c.Nemesis)
			}
		}
		c.plan = p
	}
	if strings.TrimSpace(c.Why) == "" {
		return errors.New("why is required: the documented promise or Redis semantics behind the expectation")
	}
	return nil
}
