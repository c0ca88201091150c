package checker

import (
	"encoding/json"
	"fmt"
)

// Details is a checker's own summary in a Result, of its type (a Result
// read from JSON gets the type its Name names; an unknown one RawDetails).
type Details interface {
	CheckerName() string // the checker these details come from
}

// CheckerName names the checker the details come from.
func (LockDetails) CheckerName() string      { return "lock" }
func (ResourceDetails) CheckerName() string  { return "resource" }
func (ExclusionDetails) CheckerName() string { return "exclusion" }
func (LivenessDetails) CheckerName() string  { return "liveness" }
func (FencingStats) CheckerName() string     { return "fencing" }
func (TokensDetails) CheckerName() string    { return "tokens" }

// RawDetails are the details, as stored, of a result whose checker this
// version does not know.
type RawDetails struct {
	Name string
	JSON json.RawMessage
}

// CheckerName is the result's name.
func (r RawDetails) CheckerName() string { return r.Name }

// MarshalJSON writes the stored JSON back.
func (r RawDetails) MarshalJSON() ([]byte, error) { return r.JSON, nil }

// detailsDecoders decode the details of each known checker by name.
var detailsDecoders = map[string]func([]byte) (Details, error){
	"lock":      decodeDetails[LockDetails],
	"resource":  decodeDetails[ResourceDetails],
	"exclusion": decodeDetails[ExclusionDetails],
	"liveness":  decodeDetails[LivenessDetails],
	"fencing":   decodeDetails[FencingStats],
	"tokens":    decodeDetails[TokensDetails],
}

func decodeDetails[T Details](b []byte) (Details, error) {
	var d T
	err := json.Unmarshal(b, &d)
	return d, err
}

// UnmarshalJSON reads a Result, giving Details the type its Name names.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result // Result without its methods
	var v struct {
		plain
		Details json.RawMessage `json:"details,omitempty"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Result(v.plain)
	r.Details = nil
	if len(v.Details) == 0 || string(v.Details) == "null" {
		return nil
	}
	dec := detailsDecoders[r.Name]
	if dec == nil {
		r.Details = RawDetails{Name: r.Name, JSON: v.Details}
		return nil
	}
	d, err := dec(v.Details)
	if err != nil {
		return fmt.Errorf("checker: details of %q: %w", r.Name, err)
	}
	r.Details = d
	return nil
}
