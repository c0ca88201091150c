package harness

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/lockstorm/lockstorm/cluster"
)

// Plan is a YAML test plan: every field a `lockstorm run` flag can set,
// under the flag's name. Durations are Go durations ("1.5s", "300ms").
//
//	lock: redlock
//	workload: counter
//	nemesis: [partition, client-pause]
//	nodes: 5
//	ttl: 1s
type Plan struct {
	Name             string   `yaml:"name"`
	Lock             string   `yaml:"lock"`
	Workload         string   `yaml:"workload"`
	Nemesis          []string `yaml:"nemesis"`
	Nodes            int      `yaml:"nodes"`
	Clients          int      `yaml:"clients"`
	TTL              string   `yaml:"ttl"`
	RenewEvery       string   `yaml:"renew-every"`
	Fencing          bool     `yaml:"fencing"`
	Persistence      string   `yaml:"persistence"`
	TimeLimit        string   `yaml:"time-limit"`
	Seed             int64    `yaml:"seed"`
	Store            string   `yaml:"store"`
	Provider         string   `yaml:"provider"`
	Interval         string   `yaml:"fault-interval"`
	DockerImage      string   `yaml:"docker-image"`
	Keep             bool     `yaml:"keep"`
	RedisAddrs       []string `yaml:"redis-addrs"`
	Toxiproxy        string   `yaml:"toxiproxy"`
	ListenHost       string   `yaml:"toxiproxy-listen-host"`
	PasswordEnv      string   `yaml:"redis-password-env"`
	TLS              bool     `yaml:"redis-tls"`
	AllowNonLoopback bool     `yaml:"allow-non-loopback"`
	MinCoverage      *int     `yaml:"min-coverage"`
	TargetHolder     *float64 `yaml:"target-holder"`
}

// PlanFields lists the keys a plan may hold.
func PlanFields() []string {
	t := reflect.TypeOf(Plan{})
	var out []string
	for i := 0; i < t.NumField(); i++ {
		out = append(out, t.Field(i).Tag.Get("yaml"))
	}
	sort.Strings(out)
	return out
}

// LoadPlan reads a YAML plan into a Config. An unknown key or a bad value
// is an error wrapping ErrConfig that names the field and what it allows.
func LoadPlan(path string) (Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: --config: %v", ErrConfig, err)
	}
	var p Plan
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil && !errors.Is(err, io.EOF) {
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		if strings.Contains(msg, "not found in type") {
			msg += " (allowed fields: " + strings.Join(PlanFields(), ", ") + ")"
		}
		return Config{}, fmt.Errorf("%w: %s: %s", ErrConfig, path, msg)
	}
	c, err := p.Config()
	if err != nil {
		return c, err
	}
	// A key written as 0 is refused, not taken as "default".
	var keys map[string]any
	if err := yaml.Unmarshal(b, &keys); err == nil {
		if err := c.CheckGiven(func(k string) bool { _, ok := keys[k]; return ok }); err != nil {
			return c, fmt.Errorf("%w (in %s)", err, path)
		}
	}
	return c, nil
}

// Config converts the plan, checking its durations.
func (p Plan) Config() (Config, error) {
	c := Config{Name: p.Name, Lock: p.Lock, Workload: p.Workload, Nemesis: p.Nemesis, Nodes: p.Nodes,
		Clients: p.Clients, Fencing: p.Fencing, Persistence: cluster.Persistence(p.Persistence),
		Seed: p.Seed, Store: p.Store, Provider: p.Provider, DockerImage: p.DockerImage, KeepClusterDir: p.Keep,
		External: External{RedisAddrs: p.RedisAddrs, Toxiproxy: p.Toxiproxy, ListenHost: p.ListenHost,
			PasswordEnv: p.PasswordEnv, TLS: p.TLS, AllowNonLoopback: p.AllowNonLoopback}}
	if p.MinCoverage != nil {
		c.MinCoverage = GivenMinCoverage(*p.MinCoverage)
	}
	if p.TargetHolder != nil {
		c.TargetHolder = GivenTargetHolder(*p.TargetHolder)
	}
	for _, d := range []struct {
		name string
		s    string
		to   *time.Duration
	}{{"ttl", p.TTL, &c.TTL}, {"renew-every", p.RenewEvery, &c.RenewEvery},
		{"time-limit", p.TimeLimit, &c.TimeLimit}, {"fault-interval", p.Interval, &c.FaultInterval}} {
		if d.s == "" {
			continue
		}
		v, err := time.ParseDuration(d.s)
		if err != nil {
			return c, fmt.Errorf("%w: %s must be a duration like 1s or 300ms, got %q", ErrConfig, d.name, d.s)
		}
		*d.to = v
	}
	return c, nil
}

// GivenMinCoverage maps a --min-coverage value given explicitly to
// Config.MinCoverage, where 0 means the default: a given 0 means no bar.
func GivenMinCoverage(v int) int {
	if v <= 0 {
		return -1
	}
	return v
}

// GivenTargetHolder maps a --target-holder value given explicitly to
// Config.TargetHolder, where 0 means the default: a given 0 means never.
func GivenTargetHolder(v float64) float64 {
	if v == 0 {
		return -1
	}
	return v
}
