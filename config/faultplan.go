package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/lockstorm/lockstorm/nemesis"
)

// FaultPlanFile is the file next to a run's report that holds its
// scripted fault plan as JSON, for the replay command's --fault-plan.
const FaultPlanFile = "fault-plan.json"

// LoadFaultPlan reads a fault plan as WriteFaultPlan writes it. Errors
// wrap ErrConfig and name the flag.
func LoadFaultPlan(path string) (*nemesis.Plan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: --fault-plan: %v", ErrConfig, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p nemesis.Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: --fault-plan %s: %v", ErrConfig, path, err)
	}
	return &p, nil
}

// WriteFaultPlan writes p to path as LoadFaultPlan reads it.
func WriteFaultPlan(path string, p *nemesis.Plan) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// loadPlanFile sets c.Plan from c.PlanFile when a file was named.
func (c *Config) loadPlanFile() (err error) {
	if c.PlanFile != "" {
		c.Plan, err = LoadFaultPlan(c.PlanFile)
	}
	return err
}
