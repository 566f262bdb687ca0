// Package jsondoc writes the JSON documents a program prints: indented
// objects that begin with "schemaVersion", the version of their contract,
// and that never fail on NaN or ±Inf (written as null).
package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
)

// Write writes v as indented JSON followed by a newline. JSON has no
// NaN or ±Inf: such numbers are written as null (the table output shows
// them), so -o json never fails on them.
//
// Every document is an object that begins with "schemaVersion" (the
// version of the JSON contract, SchemaVersion), added here so that no
// command can forget it.
func Write(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	var unsupported *json.UnsupportedValueError
	if errors.As(err, &unsupported) {
		data, err = json.Marshal(safe(reflect.ValueOf(v)))
	}
	if err != nil {
		return err
	}
	if len(data) < 2 || data[0] != '{' {
		return fmt.Errorf("internal error: JSON output is not an object")
	}
	head := fmt.Sprintf(`{"schemaVersion":%d`, SchemaVersion)
	if string(data) != "{}" {
		head += ","
	}
	data = append([]byte(head), data[1:]...)
	var b bytes.Buffer
	if err := json.Indent(&b, data, "", "  "); err != nil {
		return err
	}
	b.WriteByte('\n')
	_, err = w.Write(b.Bytes())
	return err
}

// SchemaVersion is the version of the JSON output contract: it changes
// when a field is renamed, removed or changes meaning.
const SchemaVersion = 1

// safe rebuilds v as maps, slices and scalars for encoding/json, with
// NaN and ±Inf floats replaced by nil; struct fields keep their JSON names
// and omitempty.
func safe(v reflect.Value) any {
	switch v.Kind() {
	case reflect.Invalid:
		return nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return safe(v.Elem())
	case reflect.Float32, reflect.Float64:
		if f := v.Float(); math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return v.Interface()
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return nil
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = safe(v.Index(i))
		}
		return out
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for _, k := range v.MapKeys() {
			out[fmt.Sprint(k.Interface())] = safe(v.MapIndex(k))
		}
		return out
	case reflect.Struct:
		if _, ok := v.Interface().(json.Marshaler); ok {
			return v.Interface()
		}
		return safeStruct(v)
	}
	return v.Interface()
}

// safeStruct is safe for a struct: its exported fields under their
// JSON names, honouring "-", omitempty and embedded structs.
func safeStruct(v reflect.Value) map[string]any {
	out := map[string]any{}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fv := v.Field(i)
		if strings.Contains(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if f.Anonymous && f.Tag.Get("json") == "" {
			if m, ok := safe(fv).(map[string]any); ok {
				for k, x := range m {
					out[k] = x
				}
				continue
			}
		}
		out[name] = safe(fv)
	}
	return out
}
