package main

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// A minimal, offline check of CI files against the parts of their public
// JSON schemas that a typo breaks (nothing is downloaded): SchemaStore's
// github-workflow.json, github-action.json and GitLab's ci.json. It checks
// required keys, the keys each object may have (those schemas forbid
// others), the types of the values used here and a few enums; it does not
// check expressions, every keyword's full value grammar, or the actions a
// step uses.

// keys says which keys an object must and may have.
type keys struct {
	required []string
	allowed  []string
}

// check appends to errs what is wrong with obj's keys, naming it where.
func (k keys) check(where string, obj map[string]any, errs *[]string) {
	for _, r := range k.required {
		if _, ok := obj[r]; !ok {
			*errs = append(*errs, fmt.Sprintf("%s: missing required key %q", where, r))
		}
	}
	var extra []string
	for key := range obj {
		if !slices.Contains(k.allowed, key) && !slices.Contains(k.required, key) {
			extra = append(extra, key)
		}
	}
	sort.Strings(extra)
	for _, key := range extra {
		*errs = append(*errs, fmt.Sprintf("%s: key %q is not allowed", where, key))
	}
}

// asMap is v as a YAML mapping, or an error in errs.
func asMap(where string, v any, errs *[]string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		*errs = append(*errs, fmt.Sprintf("%s: want a mapping, have %T", where, v))
	}
	return m
}

// isStrings says whether v is a string or a list of strings.
func isStrings(v any) bool {
	if _, ok := v.(string); ok {
		return true
	}
	l, ok := v.([]any)
	for _, x := range l {
		if _, s := x.(string); !s {
			return false
		}
	}
	return ok
}

var (
	ghWorkflowKeys = keys{[]string{"on", "jobs"}, []string{"name", "run-name", "env", "defaults", "concurrency", "permissions"}}
	ghJobKeys      = keys{[]string{"runs-on"}, []string{"name", "needs", "permissions", "environment", "outputs", "env", "defaults",
		"if", "steps", "timeout-minutes", "strategy", "continue-on-error", "container", "services", "concurrency"}}
	ghStepKeys = keys{nil, []string{"id", "if", "name", "uses", "run", "working-directory", "shell", "with", "env",
		"continue-on-error", "timeout-minutes"}}
	ghJobID = regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9_-]*$`)
	ghUses  = regexp.MustCompile(`^([^/@\s]+/[^@\s]+@[^\s]+|\./\S+|docker://\S+)$`)

	actionKeys       = keys{[]string{"name", "description", "runs"}, []string{"author", "inputs", "outputs", "branding"}}
	actionInputKeys  = keys{[]string{"description"}, []string{"required", "default", "deprecationMessage"}}
	actionOutputKeys = keys{[]string{"description", "value"}, nil}
	compositeKeys    = keys{[]string{"using", "steps"}, nil}
	compositeStep    = keys{nil, []string{"id", "if", "name", "uses", "run", "shell", "with", "env", "continue-on-error", "working-directory"}}

	gitlabGlobal = []string{"$schema", "image", "services", "before_script", "after_script", "variables", "cache",
		"default", "stages", "include", "workflow", "spec"}
	gitlabJobKeys = keys{nil, []string{"script", "before_script", "after_script", "image", "services", "stage", "variables",
		"artifacts", "rules", "only", "except", "needs", "when", "allow_failure", "timeout", "tags", "cache", "retry",
		"parallel", "interruptible", "environment", "coverage", "dependencies", "extends", "resource_group", "release",
		"secrets", "id_tokens", "inherit", "trigger", "pages", "hooks", "identity", "manual_confirmation", "run"}}
	gitlabArtifactKeys = keys{nil, []string{"paths", "exclude", "expose_as", "name", "untracked", "when", "expire_in", "reports", "public", "access"}}
	gitlabDefaultStage = []string{".pre", "build", "test", "deploy", ".post"}
)

// githubStepErrors checks one step: exactly one of uses and run, the keys
// allowed beside them, and with/env as mappings.
func githubStepErrors(where string, s map[string]any, k keys, errs *[]string) {
	k.check(where, s, errs)
	_, uses := s["uses"]
	_, run := s["run"]
	if uses == run {
		*errs = append(*errs, where+": a step has exactly one of uses and run")
	}
	if u, ok := s["uses"].(string); uses && (!ok || !ghUses.MatchString(u)) {
		*errs = append(*errs, fmt.Sprintf("%s: uses %v is not owner/repo@ref, ./path or docker://image", where, s["uses"]))
	}
	if r, ok := s["run"]; run {
		if _, str := r.(string); !ok || !str {
			*errs = append(*errs, where+": run is not a string")
		}
	}
	for _, m := range []string{"with", "env"} {
		if v, ok := s[m]; ok {
			asMap(where+"."+m, v, errs)
		}
	}
}

// githubWorkflowErrors checks a workflow file (.github/workflows/*.yaml).
func githubWorkflowErrors(wf map[string]any) []string {
	var errs []string
	ghWorkflowKeys.check("workflow", wf, &errs)
	jobs := asMap("jobs", wf["jobs"], &errs)
	if len(jobs) == 0 {
		errs = append(errs, "jobs: no job")
	}
	for id, j := range jobs {
		where := "jobs." + id
		if !ghJobID.MatchString(id) {
			errs = append(errs, where+": job id must match "+ghJobID.String())
		}
		job := asMap(where, j, &errs)
		ghJobKeys.check(where, job, &errs)
		steps, _ := job["steps"].([]any)
		if len(steps) == 0 {
			errs = append(errs, where+".steps: want a non-empty list")
		}
		for i, st := range steps {
			sw := fmt.Sprintf("%s.steps[%d]", where, i)
			githubStepErrors(sw, asMap(sw, st, &errs), ghStepKeys, &errs)
		}
	}
	return errs
}

// actionErrors checks a composite action's metadata (action.yml).
func actionErrors(a map[string]any) []string {
	var errs []string
	actionKeys.check("action", a, &errs)
	for id, in := range asMap("inputs", a["inputs"], &errs) {
		actionInputKeys.check("inputs."+id, asMap("inputs."+id, in, &errs), &errs)
	}
	for id, out := range asMap("outputs", a["outputs"], &errs) {
		actionOutputKeys.check("outputs."+id, asMap("outputs."+id, out, &errs), &errs)
	}
	runs := asMap("runs", a["runs"], &errs)
	compositeKeys.check("runs", runs, &errs)
	if runs["using"] != "composite" {
		errs = append(errs, fmt.Sprintf("runs.using %v, want composite", runs["using"]))
	}
	steps, _ := runs["steps"].([]any)
	for i, st := range steps {
		where := fmt.Sprintf("runs.steps[%d]", i)
		s := asMap(where, st, &errs)
		githubStepErrors(where, s, compositeStep, &errs)
		if _, run := s["run"]; run && s["shell"] == nil {
			errs = append(errs, where+": a composite run step needs shell")
		}
	}
	return errs
}

// gitlabErrors checks a .gitlab-ci.yml: every key that is not a global
// keyword or hidden (.name) is a job, which needs a script (or trigger or
// extends), allowed keys only, a stage the file declares, and well-formed
// artifacts.
func gitlabErrors(ci map[string]any) []string {
	var errs []string
	stages := gitlabDefaultStage
	if s, ok := ci["stages"]; ok {
		stages = nil
		if !isStrings(s) {
			errs = append(errs, "stages: want a list of strings")
		}
		l, _ := s.([]any)
		for _, x := range l {
			stages = append(stages, fmt.Sprint(x))
		}
	}
	jobs := 0
	for id, j := range ci {
		if slices.Contains(gitlabGlobal, id) || strings.HasPrefix(id, ".") {
			continue
		}
		jobs++
		job := asMap(id, j, &errs)
		gitlabJobKeys.check(id, job, &errs)
		if job["script"] == nil && job["trigger"] == nil && job["extends"] == nil {
			errs = append(errs, id+": a job needs script, trigger or extends")
		}
		for _, k := range []string{"script", "before_script", "after_script"} {
			if v, ok := job[k]; ok && !isStrings(v) {
				errs = append(errs, fmt.Sprintf("%s.%s: want a string or a list of strings", id, k))
			}
		}
		if st, ok := job["stage"]; ok && !slices.Contains(stages, fmt.Sprint(st)) {
			errs = append(errs, fmt.Sprintf("%s.stage %v: not among stages %v", id, st, stages))
		}
		if a, ok := job["artifacts"]; ok {
			gitlabArtifactErrors(id+".artifacts", asMap(id+".artifacts", a, &errs), &errs)
		}
	}
	if jobs == 0 {
		errs = append(errs, "no job")
	}
	return errs
}

func gitlabArtifactErrors(where string, a map[string]any, errs *[]string) {
	gitlabArtifactKeys.check(where, a, errs)
	if w, ok := a["when"]; ok && !slices.Contains([]any{"on_success", "on_failure", "always"}, w) {
		*errs = append(*errs, fmt.Sprintf("%s.when %v: want on_success, on_failure or always", where, w))
	}
	if p, ok := a["paths"]; ok && !isStrings(p) {
		*errs = append(*errs, where+".paths: want a list of strings")
	}
	if r, ok := a["reports"]; ok {
		if j, ok := asMap(where+".reports", r, errs)["junit"]; ok && !isStrings(j) {
			*errs = append(*errs, where+".reports.junit: want a path or a list of paths")
		}
	}
}

// The checks find what they are meant to find: a file with each kind of
// mistake fails, naming it.
func TestCISchemaCheckCatchesMistakes(t *testing.T) {
	cases := []struct {
		name string
		errs []string
		want []string
	}{
		{"workflow", githubWorkflowErrors(map[string]any{"jobs": map[string]any{"1bad": map[string]any{
			"steps": []any{map[string]any{"run": "x", "uses": "a/b@v1"}, map[string]any{"uses": "checkout", "whith": 1}}}}}),
			[]string{`missing required key "on"`, "job id must match", `missing required key "runs-on"`,
				"exactly one of uses and run", "is not owner/repo@ref", `key "whith" is not allowed`}},
		{"action", actionErrors(map[string]any{"name": "x", "runs": map[string]any{"using": "node20", "steps": []any{map[string]any{"run": "x"}}},
			"outputs": map[string]any{"v": map[string]any{"description": "d"}}}),
			[]string{`missing required key "description"`, `missing required key "value"`, "want composite", "needs shell"}},
		{"gitlab", gitlabErrors(map[string]any{"stages": []any{"test"}, "job": map[string]any{"stage": "build",
			"scripts": []any{"x"}, "artifacts": map[string]any{"when": "allways", "reports": map[string]any{"junit": 3}}}}),
			[]string{"needs script", `key "scripts" is not allowed`, "not among stages", "want on_success", "reports.junit"}},
	}
	for _, c := range cases {
		all := strings.Join(c.errs, "\n")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no error %q among:\n%s", c.name, w, all)
			}
		}
	}
}
