package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// AddFlags binds every setting as a flag of fs writing into c.
func AddFlags(fs *pflag.FlagSet, c *Config) {
	for _, s := range Settings() {
		s.value.bind(fs, c, s.Name, s.usage())
	}
}

// AddSettingFlags binds the settings named as flags of fs writing into
// c, as run binds them (compare's --lock, --ttl, --clients).
func AddSettingFlags(fs *pflag.FlagSet, c *Config, names ...string) {
	for _, n := range names {
		s, ok := setting(n)
		if !ok {
			panic("config: no setting " + n)
		}
		s.value.bind(fs, c, s.Name, s.usage())
	}
}

// usage is the flag's help, with Default when set.
func (s Setting) usage() string {
	if s.Default == "" {
		return s.Help
	}
	return s.Help + " (default " + s.Default + ")"
}

// CommandLine is the configuration a `lockstorm run` command line asks
// for: the plan at planPath (if any) under the flags given (flags holds
// their values, given says which were given). Errors wrap ErrConfig.
func CommandLine(flags Config, given func(name string) bool, planPath string) (Config, error) {
	for _, s := range Settings() {
		if given(s.Name) {
			s.value.given(&flags)
		}
	}
	c := flags
	if planPath != "" {
		var err error
		if c, err = LoadPlan(planPath); err != nil {
			return c, err
		}
		for _, s := range Settings() {
			if given(s.Name) {
				s.value.copy(&c, &flags)
			}
		}
	}
	if err := c.loadPlanFile(); err != nil {
		return c, err
	}
	return c, c.CheckGiven(given)
}

// PlanFields lists the keys a plan may hold: the settings' names.
func PlanFields() []string {
	var out []string
	for _, s := range Settings() {
		out = append(out, s.Name)
	}
	sort.Strings(out)
	return out
}

// LoadPlan reads a YAML test plan ("lock: redlock", "ttl: 1s", ...) into
// a Config: every setting under its flag's name. An unknown key, a bad
// value or a refused 0 (CheckGiven) is an error wrapping ErrConfig.
func LoadPlan(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("%w: --config: %v", ErrConfig, err)
	}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(b)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return c, fmt.Errorf("%w: %s: %s", ErrConfig, path, strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	keys, err := decodePlan(&doc, &c)
	if err != nil {
		return c, fmt.Errorf("%w: %s: %v", ErrConfig, path, err)
	}
	if err := c.CheckGiven(func(k string) bool { return keys[k] }); err != nil {
		return c, fmt.Errorf("%w (in %s)", err, path)
	}
	return c, nil
}

// decodePlan sets c's fields from a plan document and returns the keys it
// holds. Unknown and repeated keys come first, all of them; then the
// first bad value.
func decodePlan(doc *yaml.Node, c *Config) (map[string]bool, error) {
	keys := map[string]bool{}
	if len(doc.Content) == 0 {
		return keys, nil // an empty file
	}
	m := doc.Content[0]
	if m.Kind != yaml.MappingNode {
		return keys, fmt.Errorf("line %d: a plan is a mapping of keys to values", m.Line)
	}
	var lines []string
	var unknown bool
	var bad error
	line := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		s, ok := setting(k.Value)
		switch {
		case !ok:
			lines = append(lines, fmt.Sprintf("line %d: field %s not found", k.Line, k.Value))
			unknown = true
			continue
		case keys[k.Value]:
			lines = append(lines, fmt.Sprintf("line %d: mapping key %q already defined at line %d", k.Line, k.Value, line[k.Value]))
			continue
		}
		keys[k.Value], line[k.Value] = true, k.Line
		if err := s.value.decode(v, c, s.Name); err != nil && bad == nil {
			bad = err
		}
	}
	if len(lines) > 0 {
		msg := strings.Join(lines, "; ")
		if unknown {
			msg += " (allowed fields: " + strings.Join(PlanFields(), ", ") + ")"
		}
		return keys, errors.New(msg)
	}
	return keys, bad
}
