package sensor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// checkKeys refuses JSON that encoding/json would read leniently: a key
// repeated in one object, or a key that is not exactly (case-sensitively)
// one of the members of the Go type it decodes into. encoding/json
// matches names without regard to case and keeps the last of repeated
// keys, so two parsers of one signed order could otherwise read two
// different orders (docs/local-sampler.md §7.1). members overrides the
// members of the top-level object (the envelope's order is an object).
func checkKeys(data []byte, t reflect.Type, members map[string]reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walkKeys(dec, t, members, "")
}

var timeType = reflect.TypeOf(time.Time{})

// jsonMembers returns the members of a struct type's JSON object and
// those that must be present (every member not marked omitempty or
// omitzero).
func jsonMembers(t reflect.Type) (map[string]reflect.Type, []string) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || t == timeType {
		return nil, nil
	}
	m := map[string]reflect.Type{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[name] = f.Type
		if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
			required = append(required, name)
		}
	}
	return m, required
}

func walkKeys(dec *json.Decoder, t reflect.Type, members map[string]reflect.Type, at string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		var required []string
		if members == nil {
			members, required = jsonMembers(t)
		} else {
			for k := range members {
				required = append(required, k)
			}
		}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return err
			}
			k := kt.(string)
			if seen[k] {
				return fmt.Errorf("member %q%s appears twice", k, at)
			}
			seen[k] = true
			var ft reflect.Type
			if members != nil {
				if ft, ok = members[k]; !ok {
					return fmt.Errorf("unknown member %q%s (member names are exact and case-sensitive)", k, at)
				}
			}
			if err := walkKeys(dec, ft, nil, " in "+strings.TrimPrefix(at+"."+k, " in ")); err != nil {
				return err
			}
		}
		for _, k := range required {
			if !seen[k] {
				return fmt.Errorf("member %q%s is missing", k, at)
			}
		}
	case '[':
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for dec.More() {
			if err := walkKeys(dec, et, nil, at); err != nil {
				return err
			}
		}
	}
	_, err = dec.Token() // the closing delimiter
	return err
}
