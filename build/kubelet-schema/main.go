// Command kubelet-schema prints the JSON schema of every field of the upstream KubeletConfiguration
// (kubelet.config.k8s.io/v1beta1), read by reflection from the k8s.io/kubelet Go module that go.mod pins: the Go
// types are the schema the kubelet decodes its configuration file with, so they are the one source for which fields
// spec.kubelet may carry and of what type. build/kubelet-schema.mjs turns the output into
// domain/api/kubelet-configuration.generated.ts.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"runtime/debug"
	"strings"

	v1beta1 "k8s.io/kubelet/config/v1beta1"
)

// Schema is the structural OpenAPI subset a CRD accepts and ajv reads alike.
type Schema map[string]any

const goDurationPattern = `^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$|^0$`

// special are the types whose JSON form is not their Go shape: they marshal themselves.
func special(t reflect.Type) (Schema, bool) {
	switch t.PkgPath() + "." + t.Name() {
	case "k8s.io/apimachinery/pkg/apis/meta/v1.Duration":
		return Schema{"type": "string", "pattern": goDurationPattern}, true
	case "k8s.io/apimachinery/pkg/apis/meta/v1.Time":
		return Schema{"type": "string", "format": "date-time"}, true
	case "k8s.io/apimachinery/pkg/api/resource.Quantity", "k8s.io/apimachinery/pkg/api/resource.QuantityValue":
		return intOrString, true
	case "k8s.io/component-base/logs/api/v1.TimeOrMetaDuration":
		// logging.flushFrequency: nanoseconds as a number, or a Go duration string.
		return intOrString, true
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		panic(fmt.Sprintf("%s decodes its own JSON: say what it accepts in special()", t))
	}
	return nil, false
}

var intOrString = Schema{"x-kubernetes-int-or-string": true, "anyOf": []Schema{{"type": "integer"}, {"type": "string"}}}

var unmarshaler = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()

func schemaOf(t reflect.Type, seen map[reflect.Type]bool) Schema {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := special(t); ok {
		return s
	}
	switch t.Kind() {
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int32, reflect.Int16, reflect.Int8:
		return Schema{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return Schema{"type": "integer", "format": "int64"}
	case reflect.Uint32, reflect.Uint16, reflect.Uint8:
		return Schema{"type": "integer", "format": "int32", "minimum": 0}
	case reflect.Uint, reflect.Uint64:
		return Schema{"type": "integer", "format": "int64", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Slice, reflect.Array:
		return Schema{"type": "array", "items": schemaOf(t.Elem(), seen)}
	case reflect.Map:
		return Schema{"type": "object", "additionalProperties": schemaOf(t.Elem(), seen)}
	case reflect.Struct:
		return structSchema(t, seen)
	case reflect.Interface:
		// Any JSON value (logging's format options carry none today); kept, not pruned.
		return Schema{"x-kubernetes-preserve-unknown-fields": true}
	}
	panic(fmt.Sprintf("no JSON schema for %s (%s)", t, t.Kind()))
}

// field is one JSON property of a struct, embedded inline structs flattened, as encoding/json reads them.
type field struct {
	name   string
	schema Schema
}

func fieldsOf(t reflect.Type, seen map[reflect.Type]bool) []field {
	var out []field
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" {
			if f.Type == reflect.TypeOf(v1beta1.KubeletConfiguration{}.TypeMeta) {
				continue // apiVersion and kind: spec.kubelet is the configuration's body, not a document.
			}
			out = append(out, fieldsOf(f.Type, seen)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{name, schemaOf(f.Type, seen)})
	}
	return out
}

func structSchema(t reflect.Type, seen map[reflect.Type]bool) Schema {
	if seen[t] {
		panic(fmt.Sprintf("recursive type %s", t))
	}
	seen[t] = true
	defer delete(seen, t)
	properties := Schema{}
	for _, f := range fieldsOf(t, seen) {
		properties[f.name] = f.schema
	}
	return Schema{"type": "object", "properties": properties}
}

func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, d := range info.Deps {
		if d.Path == path {
			return d.Version
		}
	}
	return ""
}

func main() {
	seen := map[reflect.Type]bool{}
	fields := fieldsOf(reflect.TypeOf(v1beta1.KubeletConfiguration{}), seen)
	names := make([]string, 0, len(fields))
	properties := Schema{}
	for _, f := range fields {
		names = append(names, f.name)
		properties[f.name] = f.schema
	}
	out := map[string]any{"module": "k8s.io/kubelet", "version": moduleVersion("k8s.io/kubelet"), "order": names, "properties": properties}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", "  ")
	if err := encoder.Encode(out); err != nil {
		panic(err)
	}
}
