package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/lockstorm/lockstorm/checker"
)

// The composite action at the repository's root and its shell step.
const (
	actionFile   = "../../action.yml"
	actionScript = "../../scripts/action.sh"
)

var (
	inputRef  = regexp.MustCompile(`\$\{\{\s*inputs\.([a-z0-9-]+)\s*\}\}`)
	stepOut   = regexp.MustCompile(`^\$\{\{\s*steps\.run\.outputs\.([a-z0-9_-]+)\s*\}\}$`)
	scriptIn  = regexp.MustCompile(`INPUT_[A-Z0-9_]+`)
	scriptOut = regexp.MustCompile(`(?m)^\s*emit ([a-z0-9_]+) `)
)

// actionSteps are action.yml's steps: the one that runs scripts/action.sh
// (id run) and the upload.
func actionSteps(t *testing.T) (a map[string]any, run, upload map[string]any) {
	t.Helper()
	a = yamlDocs(t, actionFile)[0]
	for _, st := range at(t, a, "runs", "steps").([]any) {
		s := st.(map[string]any)
		if s["id"] == "run" {
			run = s
		}
		if u, _ := s["uses"].(string); strings.HasPrefix(u, "actions/upload-artifact@") {
			upload = s
		}
	}
	if run == nil || upload == nil {
		t.Fatalf("%s: want a step with id run and an actions/upload-artifact step", actionFile)
	}
	return a, run, upload
}

// actionEnv is the environment action.yml gives scripts/action.sh when a
// workflow passes with: each INPUT_* of the run step's env with its
// ${{ inputs.NAME }} replaced by with[NAME] or the input's default, and
// ${{ runner.temp }} by temp.
func actionEnv(t *testing.T, with map[string]string, temp string) []string {
	t.Helper()
	a, run, _ := actionSteps(t)
	inputs := at(t, a, "inputs").(map[string]any)
	for name := range with {
		if inputs[name] == nil {
			t.Fatalf("with: %s is not an input of the action", name)
		}
	}
	var env []string
	for k, v := range at(t, run, "env").(map[string]any) {
		val := inputRef.ReplaceAllStringFunc(v.(string), func(ref string) string {
			name := inputRef.FindStringSubmatch(ref)[1]
			if w, ok := with[name]; ok {
				return w
			}
			d, _ := inputs[name].(map[string]any)["default"].(string)
			return d
		})
		env = append(env, k+"="+strings.ReplaceAll(val, "${{ runner.temp }}", temp))
	}
	return env
}

// runAction runs scripts/action.sh for real in dir, as action.yml runs it
// with these inputs, with the lockstorm under test (LOCKSTORM_BIN). It
// returns the exit status and the outputs written to GITHUB_OUTPUT, and
// logs the end of the script's output.
func runAction(t *testing.T, dir string, with map[string]string) (int, map[string]string) {
	t.Helper()
	script, err := filepath.Abs(actionScript)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "github_output")
	cmd := exec.Command(script)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "CI=1", "LOCKSTORM_BIN="+binary(t), "GITHUB_OUTPUT="+out),
		actionEnv(t, with, t.TempDir())...)
	log, err := cmd.CombinedOutput()
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		t.Fatalf("scripts/action.sh: %v\n%s", err, log)
	}
	b, _ := os.ReadFile(out)
	outputs := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			outputs[k] = v
		}
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	t.Logf("scripts/action.sh %v: exit %d, outputs %v; its output ends:\n%s", with, code, outputs,
		strings.Join(lines[max(0, len(lines)-12):], "\n"))
	return code, outputs
}

// action.yml passes its schema's required keys, has the inputs and
// outputs, passes every input to a step, hands scripts/action.sh exactly
// the INPUT_* variables it reads, takes each output from one the script
// writes, and uploads the store the script wrote, even after a failure.
func TestActionMetadata(t *testing.T) {
	a, run, upload := actionSteps(t)
	if errs := actionErrors(a); len(errs) > 0 {
		t.Errorf("%s:\n%s", actionFile, strings.Join(errs, "\n"))
	}
	script, err := os.ReadFile(actionScript)
	if err != nil {
		t.Fatal(err)
	}
	inputs := at(t, a, "inputs").(map[string]any)
	for _, in := range []string{"lock", "client-cmd", "nemesis", "seeds", "time-limit", "min-coverage", "args"} {
		if inputs[in] == nil {
			t.Errorf("no input %s", in)
		}
	}
	raw, err := os.ReadFile(actionFile)
	if err != nil {
		t.Fatal(err)
	}
	_, steps, _ := strings.Cut(string(raw), "\nruns:\n")
	for in := range inputs {
		if !strings.Contains(steps, "inputs."+in+" }}") {
			t.Errorf("input %s reaches no step", in)
		}
	}
	var passed []string
	for k := range at(t, run, "env").(map[string]any) {
		passed = append(passed, k)
	}
	read := scriptIn.FindAllString(string(script), -1)
	for _, k := range passed {
		if !slices.Contains(read, k) {
			t.Errorf("action.yml passes %s, which scripts/action.sh does not read", k)
		}
	}
	for _, k := range read {
		if !slices.Contains(passed, k) {
			t.Errorf("scripts/action.sh reads %s, which action.yml does not pass", k)
		}
	}
	if r, _ := run["run"].(string); !strings.HasSuffix(r, "/scripts/action.sh") {
		t.Errorf("the run step runs %q, want scripts/action.sh", r)
	}
	var emitted []string
	for _, m := range scriptOut.FindAllStringSubmatch(string(script), -1) {
		emitted = append(emitted, m[1])
	}
	for _, o := range []string{"verdict", "report"} {
		if at(t, a, "outputs", o) == nil {
			t.Errorf("no output %s", o)
		}
	}
	for name, o := range at(t, a, "outputs").(map[string]any) {
		m := stepOut.FindStringSubmatch(at(t, o, "value").(string))
		if m == nil || !slices.Contains(emitted, m[1]) {
			t.Errorf("output %s is %v: want ${{ steps.run.outputs.K }} with K one scripts/action.sh writes (%v)", name, o, emitted)
		}
	}
	if upload["if"] != "always()" || at(t, upload, "with", "path") != at(t, run, "env", "INPUT_STORE") {
		t.Errorf("upload step %v: want if always() and the path of INPUT_STORE, %v", upload, at(t, run, "env", "INPUT_STORE"))
	}
}

// scripts/action.sh for real, on runs whose verdict is known in advance:
// the single lock under client pauses loses an update (invalid, exit 1,
// the report of the first invalid run), and no lock at all is bad input
// (exit 2, verdict error, no lockstorm run). The valid case is the
// client-cmd example (TestCIExamples).
func TestActionScriptVerdicts(t *testing.T) {
	dir := t.TempDir()
	code, out := runAction(t, dir, map[string]string{"lock": "single", "nemesis": "client-pause", "seeds": "2",
		"time-limit": "2s", "args": "--ttl 500ms --seed 1 --until-invalid"})
	if code != exitInvalid || out["verdict"] != "invalid" {
		t.Errorf("single under client-pause: exit %d, verdict %q; want 1, invalid", code, out["verdict"])
	}
	var res struct {
		Valid checker.Validity `json:"valid"`
	}
	b, err := os.ReadFile(filepath.Join(filepath.Dir(out["report"]), "results.json"))
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil || res.Valid != checker.Invalid {
		t.Errorf("report %q: its run's results.json says %v (%v), want invalid", out["report"], res.Valid, err)
	}
	if _, err := os.Stat(out["junit"]); err != nil || !strings.HasPrefix(out["report"], out["store"]) {
		t.Errorf("junit %q (%v), report %q outside store %q", out["junit"], err, out["report"], out["store"])
	}

	code, out = runAction(t, dir, map[string]string{"nemesis": "partition"})
	if code != exitUsage || out["verdict"] != "error" || out["report"] != "" {
		t.Errorf("no lock and no client-cmd: exit %d, outputs %v; want 2, verdict error, no report", code, out)
	}
}
