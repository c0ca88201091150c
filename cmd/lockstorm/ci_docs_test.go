package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/lockstorm/lockstorm/internal/shard"
)

// The CI examples of docs/ci/ (README "Campaigns over many machines").
const (
	ciDir          = "../../docs/ci/"
	ghWorkflow     = ciDir + "github-actions-shards.yaml"
	k8sShardsJob   = ciDir + "k8s-indexed-job.yaml"
	k8sMergeJob    = ciDir + "k8s-merge-job.yaml"
	imageScript    = "../../docker/build-lockstorm-image.sh"
	matrixShard    = "${{ matrix.shard }}"
	completionIdx  = "$(JOB_COMPLETION_INDEX)"
	shardFlagRegex = `--shard[ =](.+?)/(\d+)`
)

// yamlDocs parses every document of a YAML file into generic maps.
func yamlDocs(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var d map[string]any
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s does not parse: %v", path, err)
		}
		out = append(out, d)
	}
	return out
}

// at walks a parsed YAML value by map keys and list indexes ("0").
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for i, k := range path {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			n, err := strconv.Atoi(k)
			if err != nil || n >= len(x) {
				t.Fatalf("%s: no item %s", strings.Join(path[:i], "."), k)
			}
			v = x[n]
		default:
			t.Fatalf("%s: not a map or list", strings.Join(path[:i], "."))
		}
		if v == nil {
			t.Fatalf("no %s", strings.Join(path[:i+1], "."))
		}
	}
	return v
}

// checkFlags parses a lockstorm command line (after the subcommand) with
// the real command's flags: a flag the command lacks fails the test.
func checkFlags(t *testing.T, cmd *cobra.Command, args []string) {
	t.Helper()
	if err := cmd.ParseFlags(args); err != nil {
		t.Errorf("%s %v: %v", cmd.Name(), args, err)
	}
	if v := cmd.Flags().Lookup("shard"); v != nil && v.Changed {
		if _, err := shard.Parse(v.Value.String()); err != nil {
			t.Errorf("%s: %v", cmd.Name(), err)
		}
	}
}

// The GitHub Actions example: a matrix over shards 0..N-1, each job
// running `lockstorm catalog --shard ${{ matrix.shard }}/N` and uploading
// its store; a merge job that needs them, downloads every artifact, runs
// `lockstorm merge` on them and publishes its JUnit.
func TestCIGitHubActionsWorkflow(t *testing.T) {
	wf := yamlDocs(t, ghWorkflow)[0]
	shards := at(t, wf, "jobs", "shard", "strategy", "matrix", "shard").([]any)
	for i, s := range shards {
		if s != i {
			t.Errorf("matrix.shard[%d] = %v, want %d (K counts from 0)", i, s, i)
		}
	}
	steps := at(t, wf, "jobs", "shard", "steps").([]any)
	var ran, uploaded bool
	for _, st := range steps {
		s := st.(map[string]any)
		if run, _ := s["run"].(string); strings.HasPrefix(run, "lockstorm ") {
			m := regexp.MustCompile(shardFlagRegex).FindStringSubmatch(run)
			if m == nil || m[1] != matrixShard || m[2] != strconv.Itoa(len(shards)) {
				t.Errorf("shard job runs %q: want --shard %s/%d", run, matrixShard, len(shards))
			}
			args := strings.Fields(strings.ReplaceAll(run, matrixShard, "0"))
			checkFlags(t, catalogCommand(), args[2:])
			ran = true
		}
		if uses, _ := s["uses"].(string); strings.HasPrefix(uses, "actions/upload-artifact") {
			uploaded = s["if"] == "always()" && strings.Contains(at(t, s, "with", "name").(string), "${{ matrix.shard }}")
		}
	}
	if !ran || !uploaded {
		t.Errorf("shard job: runs lockstorm %v, uploads its store per shard even on failure %v", ran, uploaded)
	}
	if needs := at(t, wf, "jobs", "merge", "needs"); needs != "shard" {
		t.Errorf("merge job needs %v, want shard", needs)
	}
	var merged, published bool
	var downloaded string
	for _, st := range at(t, wf, "jobs", "merge", "steps").([]any) {
		s := st.(map[string]any)
		if uses, _ := s["uses"].(string); strings.HasPrefix(uses, "actions/download-artifact") {
			downloaded = at(t, s, "with", "path").(string)
		}
		if run, _ := s["run"].(string); strings.HasPrefix(run, "lockstorm merge ") {
			args := strings.Fields(run)
			merged = downloaded != "" && args[2] == downloaded
			checkFlags(t, mergeCommand(), args[2:])
			if !strings.Contains(run, "--junit merged/junit.xml") {
				t.Errorf("merge step %q writes no merged/junit.xml", run)
			}
		}
		if uses, _ := s["uses"].(string); strings.Contains(uses, "junit-report") {
			published = at(t, s, "with", "report_paths") == "merged/junit.xml"
		}
	}
	if !merged || !published {
		t.Errorf("merge job: merges the downloaded artifacts %v, publishes the JUnit %v", merged, published)
	}
}

// The Kubernetes example: an Indexed Job with completions = parallelism =
// N running the lockstorm image with --shard $(JOB_COMPLETION_INDEX)/N
// and a store per pod on a shared claim, and a merge Job reading them.
func TestCIKubernetesIndexedJob(t *testing.T) {
	script, err := os.ReadFile(imageScript)
	if err != nil {
		t.Fatal(err)
	}
	image := regexp.MustCompile(`IMAGE=\$\{1:-([^}]+)\}`).FindSubmatch(script)
	if image == nil {
		t.Fatalf("%s: no default image name", imageScript)
	}
	var job map[string]any
	claims := map[string]bool{}
	for _, d := range yamlDocs(t, k8sShardsJob) {
		switch d["kind"] {
		case "Job":
			job = d
		case "PersistentVolumeClaim":
			claims[at(t, d, "metadata", "name").(string)] = true
		}
	}
	if job == nil {
		t.Fatal("no Job")
	}
	if m := at(t, job, "spec", "completionMode"); m != "Indexed" {
		t.Errorf("completionMode %v, want Indexed", m)
	}
	n, par := at(t, job, "spec", "completions"), at(t, job, "spec", "parallelism")
	c := at(t, job, "spec", "template", "spec", "containers", "0").(map[string]any)
	if c["image"] != string(image[1]) {
		t.Errorf("container image %v, want %s (docker/build-lockstorm-image.sh)", c["image"], image[1])
	}
	var args []string
	for _, a := range c["args"].([]any) {
		args = append(args, a.(string))
	}
	m := regexp.MustCompile(shardFlagRegex).FindStringSubmatch(strings.Join(args, " "))
	if m == nil || m[1] != completionIdx || m[2] != strconv.Itoa(n.(int)) || par != n {
		t.Errorf("completions %v, parallelism %v, args %v: want --shard=%s/N with N = completions = parallelism", n, par, args, completionIdx)
	}
	if args[0] != "run" {
		t.Fatalf("the shard job runs %q, want a run --runs campaign", args[0])
	}
	var subst []string
	for _, a := range args[1:] {
		subst = append(subst, strings.ReplaceAll(a, completionIdx, "0"))
	}
	cmd := runCommand()
	checkFlags(t, cmd, subst)
	if runs, _ := cmd.Flags().GetInt("runs"); runs < n.(int) || !cmd.Flags().Changed("seed") {
		t.Errorf("--runs %d with %v shards, --seed given %v: every shard needs runs and one base seed", runs, n, cmd.Flags().Changed("seed"))
	}
	store, _ := cmd.Flags().GetString("store")
	if !strings.Contains(strings.Join(args, " "), "--store=/store/shard-"+completionIdx) {
		t.Errorf("--store %s: want a store per pod, /store/shard-%s", store, completionIdx)
	}
	vol := at(t, job, "spec", "template", "spec", "volumes", "0", "persistentVolumeClaim", "claimName").(string)
	if !claims[vol] {
		t.Errorf("the Job mounts claim %s, which the manifest does not declare", vol)
	}

	merge := yamlDocs(t, k8sMergeJob)[0]
	mc := at(t, merge, "spec", "template", "spec", "containers", "0").(map[string]any)
	var margs []string
	for _, a := range mc["args"].([]any) {
		margs = append(margs, a.(string))
	}
	if mc["image"] != string(image[1]) || margs[0] != "merge" || margs[1] != filepath.Dir(store) {
		t.Errorf("merge Job: image %v, args %v; want %s merging %s", mc["image"], margs, image[1], filepath.Dir(store))
	}
	checkFlags(t, mergeCommand(), margs[1:])
	if c := at(t, merge, "spec", "template", "spec", "volumes", "0", "persistentVolumeClaim", "claimName"); c != vol {
		t.Errorf("merge Job mounts claim %v, want %s", c, vol)
	}
}
