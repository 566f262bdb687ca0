package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The sharded Δ2's Kubernetes example (examples/scheduling/sensitivity-shards.yaml)
// is checked here, where no cluster, kubectl server or kubeconform schema
// is at hand (kubectl --dry-run=client downloads the API server's OpenAPI
// document): every key is one the batch/v1 Job API has at its place
// (a misspelt completionMode would silently make a NonIndexed Job), the
// Indexed Job's fields agree with each other, and every graphcloak flag in
// it exists on the command that takes it.

// k8sKeys lists the keys the example may use at each place (a subset of
// the batch/v1 Job API); a key missing here is a typo or needs adding.
var k8sKeys = map[string][]string{
	"":                    {"apiVersion", "kind", "metadata", "spec"},
	"metadata":            {"name", "namespace", "labels", "annotations"},
	"spec":                {"completionMode", "completions", "parallelism", "backoffLimit", "backoffLimitPerIndex", "maxFailedIndexes", "activeDeadlineSeconds", "ttlSecondsAfterFinished", "template"},
	"spec.template":       {"metadata", "spec"},
	"spec.template.spec":  {"restartPolicy", "containers", "initContainers", "volumes", "serviceAccountName", "nodeSelector", "tolerations"},
	"container":           {"name", "image", "command", "args", "env", "envFrom", "resources", "volumeMounts", "workingDir"},
	"container.env":       {"name", "value", "valueFrom"},
	"container.envFrom":   {"secretRef", "configMapRef"},
	"container.resources": {"requests", "limits"},
	"container.mount":     {"name", "mountPath", "readOnly", "subPath"},
	"volume":              {"name", "configMap", "secret", "persistentVolumeClaim", "emptyDir"},
}

type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          *int   `yaml:"completions"`
		Parallelism          *int   `yaml:"parallelism"`
		BackoffLimitPerIndex *int   `yaml:"backoffLimitPerIndex"`
		Template             struct {
			Spec struct {
				RestartPolicy  string         `yaml:"restartPolicy"`
				Containers     []k8sContainer `yaml:"containers"`
				InitContainers []k8sContainer `yaml:"initContainers"`
				Volumes        []struct {
					Name string `yaml:"name"`
					PVC  *struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name    string   `yaml:"name"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

func (c k8sContainer) env(name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// checkK8sKeys walks a decoded document and reports keys not in k8sKeys.
func checkK8sKeys(t *testing.T, doc map[string]any) {
	t.Helper()
	var walk func(place string, v any)
	check := func(place string, m map[string]any) {
		allowed := k8sKeys[place]
		for k := range m {
			ok := false
			for _, a := range allowed {
				ok = ok || a == k
			}
			if !ok {
				t.Errorf("key %q at %q is not a batch/v1 Job field this example may use", k, place)
			}
		}
	}
	walk = func(place string, v any) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		check(place, m)
		switch place {
		case "":
			walk("metadata", m["metadata"])
			walk("spec", m["spec"])
		case "spec":
			walk("spec.template", m["template"])
		case "spec.template":
			walk("spec.template.spec", m["spec"])
		case "spec.template.spec":
			for _, list := range []string{"containers", "initContainers"} {
				cs, _ := m[list].([]any)
				for _, c := range cs {
					walk("container", c)
				}
			}
			vs, _ := m["volumes"].([]any)
			for _, v := range vs {
				walk("volume", v)
			}
		case "container":
			for key, sub := range map[string]string{"env": "container.env", "envFrom": "container.envFrom", "volumeMounts": "container.mount"} {
				list, _ := m[key].([]any)
				for _, e := range list {
					walk(sub, e)
				}
			}
			walk("container.resources", m["resources"])
		}
	}
	walk("", doc)
}

// graphcloakFlags returns the subcommand words and --flags of the
// graphcloak invocation in a shell script.
func graphcloakFlags(script string) (words, flags []string) {
	fields := strings.Fields(script)
	for k, f := range fields {
		if f != "graphcloak" {
			continue
		}
		for _, g := range fields[k+1:] {
			if g == "&&" || g == ";" {
				break
			}
			switch {
			case strings.HasPrefix(g, "--"):
				flags = append(flags, strings.SplitN(strings.TrimPrefix(g, "--"), "=", 2)[0])
			case len(flags) == 0 && regexp.MustCompile(`^[a-z]+$`).MatchString(g):
				words = append(words, g)
			}
		}
		break
	}
	return words, flags
}

// TestSensitivityShardsManifest validates the Indexed Job example.
func TestSensitivityShardsManifest(t *testing.T) {
	data, err := os.ReadFile("../../examples/scheduling/sensitivity-shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var jobs []k8sJob
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		checkK8sKeys(t, doc)
		b, _ := yaml.Marshal(doc)
		var j k8sJob
		if err := yaml.Unmarshal(b, &j); err != nil {
			t.Fatal(err)
		}
		if j.APIVersion != "batch/v1" || j.Kind != "Job" || j.Metadata.Name == "" {
			t.Errorf("a document is %s %s %q, want a named batch/v1 Job", j.APIVersion, j.Kind, j.Metadata.Name)
		}
		jobs = append(jobs, j)
	}
	if len(jobs) != 2 {
		t.Fatalf("%d Jobs, want the shards and the merge", len(jobs))
	}
	shards, merge := jobs[0], jobs[1]
	s := shards.Spec
	switch {
	case s.CompletionMode != "Indexed":
		t.Errorf("completionMode %q, want Indexed (JOB_COMPLETION_INDEX is set only then)", s.CompletionMode)
	case s.Completions == nil || *s.Completions < 1:
		t.Fatalf("an Indexed Job needs completions ≥ 1")
	case s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions:
		t.Errorf("parallelism %v: want 1 … completions (%d)", s.Parallelism, *s.Completions)
	case s.BackoffLimitPerIndex != nil && s.Template.Spec.RestartPolicy != "Never":
		t.Errorf("backoffLimitPerIndex needs restartPolicy Never, have %q", s.Template.Spec.RestartPolicy)
	}
	n := *s.Completions
	claim := func(j k8sJob, volume string) string {
		for _, v := range j.Spec.Template.Spec.Volumes {
			if v.Name == volume && v.PVC != nil {
				return v.PVC.ClaimName
			}
		}
		return ""
	}
	// sharedDir is the mount path of the shared claim in container c.
	sharedDir := func(j k8sJob, c k8sContainer) (string, string) {
		for _, m := range c.VolumeMounts {
			if cl := claim(j, m.Name); cl != "" {
				return m.MountPath, cl
			}
		}
		return "", ""
	}
	if len(s.Template.Spec.Containers) != 1 {
		t.Fatalf("the shard Job has %d containers, want 1", len(s.Template.Spec.Containers))
	}
	c := s.Template.Spec.Containers[0]
	script := strings.Join(c.Args, " ")
	if got := c.env("SHARDS"); got != fmt.Sprint(n) {
		t.Errorf("SHARDS is %q, completions %d: every index must be a shard of N = completions", got, n)
	}
	if !strings.Contains(script, "--shard ${JOB_COMPLETION_INDEX}/${SHARDS}") {
		t.Errorf("the shard's command does not take --shard from JOB_COMPLETION_INDEX: %s", script)
	}
	dir, shardClaim := sharedDir(shards, c)
	save := regexp.MustCompile(`--save (\S+)`).FindStringSubmatch(script)
	if dir == "" || save == nil || !strings.HasPrefix(save[1], dir+"/") || !strings.Contains(save[1], "${JOB_COMPLETION_INDEX}") {
		t.Errorf("the shard saves %v, want a file named by its index on the shared volume (%q)", save, dir)
	}
	// The merge: same claim, waits for N parts, merges them.
	ms := merge.Spec.Template.Spec
	if len(ms.Containers) != 1 || len(ms.InitContainers) != 1 {
		t.Fatalf("the merge Job has %d containers and %d init containers, want 1 and 1", len(ms.Containers), len(ms.InitContainers))
	}
	mc, wait := ms.Containers[0], ms.InitContainers[0]
	mscript := strings.Join(mc.Args, " ")
	mdir, mergeClaim := sharedDir(merge, mc)
	if mergeClaim != shardClaim {
		t.Errorf("the merge reads claim %q, the shards write %q", mergeClaim, shardClaim)
	}
	if wait.env("SHARDS") != fmt.Sprint(n) || wait.env("RUN") != c.env("RUN") || mc.env("RUN") != c.env("RUN") {
		t.Errorf("the merge waits for %q parts of run %q (merges %q); the shards are %d of run %q",
			wait.env("SHARDS"), wait.env("RUN"), mc.env("RUN"), n, c.env("RUN"))
	}
	parts := path.Join(mdir, "$RUN", "part-*.json")
	if !strings.Contains(mscript, "sensitivity merge "+parts) || !strings.Contains(save[1], path.Join(dir, "$RUN", "part-")) {
		t.Errorf("the merge does not read the parts the shards write (%s; shards save %s)", mscript, save[1])
	}
	// Every flag exists on the command that takes it.
	for _, sc := range []string{script, mscript} {
		words, flags := graphcloakFlags(sc)
		root := newRootCmd(io.Discard, io.Discard)
		cmd, _, err := root.Find(words)
		if err != nil || cmd == root {
			t.Errorf("graphcloak %v: no such command: %v", words, err)
			continue
		}
		for _, f := range flags {
			if cmd.Flags().Lookup(f) == nil && cmd.InheritedFlags().Lookup(f) == nil && root.PersistentFlags().Lookup(f) == nil {
				t.Errorf("graphcloak %s has no flag --%s", strings.Join(words, " "), f)
			}
		}
	}
}
