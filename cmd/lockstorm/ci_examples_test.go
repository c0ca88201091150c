package main

import (
	"encoding/xml"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The worked examples of docs/ci/: a user's own lock in CI three ways,
// each a folder standing for the user's repository, with a GitHub Actions
// workflow and a GitLab CI file.
const (
	ghExample     = "github-actions.yaml"
	gitlabExample = "gitlab-ci.yml"
	actionUses    = "lockstorm/lockstorm@"
)

// payload matches the lines of a CI file that test the lock (a lockstorm
// command, or go test), as opposed to setup (apt-get, go install), which
// the tests do not run: this machine has what they install.
var payload = regexp.MustCompile(`^(\w+=\S+ )*(lockstorm|go test) `)

// ciJob is what one CI file of an example runs and keeps.
type ciJob struct {
	commands  []string          // payload shell lines
	action    map[string]string // the lockstorm action's with:, if used
	artifacts []string          // paths kept as artifacts
	junit     []string          // JUnit paths published
}

// githubJob reads an example's GitHub workflow (one job).
func githubJob(t *testing.T, path string) ciJob {
	t.Helper()
	wf := yamlDocs(t, path)[0]
	if errs := githubWorkflowErrors(wf); len(errs) > 0 {
		t.Errorf("%s:\n%s", path, strings.Join(errs, "\n"))
	}
	var j ciJob
	for _, job := range at(t, wf, "jobs").(map[string]any) {
		for _, st := range at(t, job, "steps").([]any) {
			s := st.(map[string]any)
			uses, _ := s["uses"].(string)
			run, _ := s["run"].(string)
			switch {
			case payload.MatchString(run):
				j.commands = append(j.commands, run)
			case strings.HasPrefix(uses, actionUses):
				j.action = map[string]string{}
				for k, v := range at(t, s, "with").(map[string]any) {
					j.action[k] = v.(string)
				}
			case strings.HasPrefix(uses, "actions/upload-artifact@"):
				j.artifacts = append(j.artifacts, at(t, s, "with", "path").(string))
			case strings.Contains(uses, "junit-report"):
				j.junit = append(j.junit, at(t, s, "with", "report_paths").(string))
			}
		}
	}
	return j
}

// gitlabJob reads an example's GitLab CI file (one job): every script line
// is a payload.
func gitlabJob(t *testing.T, path string) ciJob {
	t.Helper()
	ci := yamlDocs(t, path)[0]
	if errs := gitlabErrors(ci); len(errs) > 0 {
		t.Errorf("%s:\n%s", path, strings.Join(errs, "\n"))
	}
	var j ciJob
	for id, job := range ci {
		if slices.Contains(gitlabGlobal, id) {
			continue
		}
		for _, l := range at(t, job, "script").([]any) {
			if !payload.MatchString(l.(string)) {
				t.Errorf("%s: script line %q runs neither lockstorm nor go test", path, l)
			}
			j.commands = append(j.commands, l.(string))
		}
		for _, p := range at(t, job, "artifacts", "paths").([]any) {
			j.artifacts = append(j.artifacts, p.(string))
		}
		j.junit = append(j.junit, at(t, job, "artifacts", "reports", "junit").(string))
	}
	return j
}

// copyExample copies an example folder (symbolic links followed) to a
// fresh folder, so its runs write nothing into the checkout.
func copyExample(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o755)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// runShell runs a CI line with sh in dir, lockstorm on PATH; it must exit 0.
func runShell(t *testing.T, dir, line string) {
	t.Helper()
	binary(t) // lockstorm on PATH, as go install leaves it
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CI=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("%s (in %s): %v\n%s", line, dir, err, out)
	}
}

// globAll expands a path pattern under dir; "**/" matches any folders.
func globAll(t *testing.T, dir, pattern string) []string {
	t.Helper()
	pre, post, deep := strings.Cut(pattern, "**/")
	if !deep {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		return m
	}
	var out []string
	_ = filepath.WalkDir(filepath.Join(dir, pre), func(p string, d fs.DirEntry, err error) error {
		if ok, _ := filepath.Match(post, filepath.Base(p)); err == nil && !d.IsDir() && ok {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// checkKept checks that what a CI file keeps exists after its run: the
// artifact folders, and JUnit files with test cases, none skipped or
// failed.
func checkKept(t *testing.T, dir string, j ciJob) {
	t.Helper()
	for _, a := range j.artifacts {
		if _, err := os.Stat(filepath.Join(dir, a)); err != nil {
			t.Errorf("artifact %s: %v", a, err)
		}
	}
	for _, p := range j.junit {
		files := globAll(t, dir, p)
		if len(files) == 0 {
			t.Errorf("JUnit %s: no file", p)
		}
		for _, f := range files {
			checkJUnitPassed(t, f)
		}
	}
}

// checkJUnitPassed: f is JUnit XML with no failed test case and at least
// one that ran (a checker that does not apply is a skipped case; a zoo
// entry whose runtime is missing is skipped too).
func checkJUnitPassed(t *testing.T, f string) {
	t.Helper()
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
			Error   *struct{} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testsuite>testcase"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || len(doc.Cases) == 0 {
		t.Errorf("%s: %v, %d test cases", f, err, len(doc.Cases))
	}
	ran := 0
	for _, c := range doc.Cases {
		if c.Failure != nil || c.Error != nil {
			t.Errorf("%s: test case %q failed", f, c.Name)
		}
		if c.Skipped == nil {
			ran++
		}
	}
	if ran == 0 {
		t.Errorf("%s: every test case was skipped", f)
	}
}

// Each example's GitHub and GitLab files pass the schema check and run the
// same payload lines, and the test runs those lines for real, in a copy of
// the example's folder (the Go example in place: it is a package of this
// module), expecting exit 0 and the artifacts and JUnit the files keep.
// The client-cmd example's workflow uses the lockstorm action: the test
// runs scripts/action.sh with its with: inputs, as action.yml would.
func TestCIExamples(t *testing.T) {
	t.Parallel() // long, and shares no state with the package's other tests (issue 28)
	for _, name := range []string{"go-test", "client-cmd", "zoo"} {
		t.Run(name, func(t *testing.T) {
			src := ciDir + name
			gh, gl := githubJob(t, filepath.Join(src, ghExample)), gitlabJob(t, filepath.Join(src, gitlabExample))
			if gh.action == nil && !slices.Equal(gh.commands, gl.commands) {
				t.Errorf("GitHub runs %q, GitLab %q: want the same lines", gh.commands, gl.commands)
			}
			if len(gl.commands) == 0 {
				t.Fatal("the GitLab file runs nothing")
			}
			dir := src
			if name == "go-test" {
				t.Cleanup(func() { os.RemoveAll(filepath.Join(src, "store")) })
			} else {
				dir = copyExample(t, src)
			}
			for _, line := range gl.commands {
				runShell(t, dir, line)
			}
			checkKept(t, dir, gl)
			if gh.action != nil {
				code, out := runAction(t, copyExample(t, src), gh.action)
				if code != exitValid || out["verdict"] != "valid" {
					t.Errorf("the action with %v: exit %d, outputs %v; want 0, valid", gh.action, code, out)
				}
				checkJUnitPassed(t, out["junit"])
				checkOutputsUsed(t, filepath.Join(src, ghExample), out)
				if _, err := os.Stat(out["report"]); err != nil {
					t.Errorf("report output: %v", err)
				}
				return
			}
			checkKept(t, dir, gh)
		})
	}
}

// checkOutputsUsed: every steps.ID.outputs.NAME a workflow reads is an
// output the action wrote.
func checkOutputsUsed(t *testing.T, workflow string, out map[string]string) {
	t.Helper()
	b, err := os.ReadFile(workflow)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`steps\.\w+\.outputs\.(\w+)`).FindAllStringSubmatch(string(b), -1) {
		if _, ok := out[m[1]]; !ok {
			t.Errorf("%s reads output %s, which the action did not write", workflow, m[1])
		}
	}
}

// The older campaign workflow of docs/ci/ passes the same schema check.
func TestCIShardsWorkflowSchema(t *testing.T) {
	if errs := githubWorkflowErrors(yamlDocs(t, ghWorkflow)[0]); len(errs) > 0 {
		t.Errorf("%s:\n%s", ghWorkflow, strings.Join(errs, "\n"))
	}
}
