package main

import (
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/aws/karpenter-provider-aws/pkg/apis"
	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
)

// crdSchema is the openAPIV3Schema of Karpenter's EC2NodeClass v1 CRD, as this version ships it.
func crdSchema() (map[string]any, error) {
	crd := map[string]any{}
	if err := yaml.Unmarshal(apis.EC2NodeClassCRD, &crd); err != nil {
		return nil, err
	}
	spec, _ := crd["spec"].(map[string]any)
	versions, _ := spec["versions"].([]any)
	for _, v := range versions {
		version, _ := v.(map[string]any)
		if version["name"] != "v1" {
			continue
		}
		schema, _ := version["schema"].(map[string]any)
		if s, ok := schema["openAPIV3Schema"].(map[string]any); ok {
			return s, nil
		}
	}
	return nil, fmt.Errorf("the EC2NodeClass CRD has no v1 schema")
}

// applyDefaults fills in the schema's defaults as the API server does before Karpenter reads an
// object: a property that is absent gets its default, then defaults apply inside what is present.
func applyDefaults(value any, schema map[string]any) any {
	switch v := value.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for name, p := range props {
			ps, _ := p.(map[string]any)
			if _, present := v[name]; !present {
				if d, ok := ps["default"]; ok {
					v[name] = deepCopy(d)
				}
			}
			if child, present := v[name]; present {
				v[name] = applyDefaults(child, ps)
			}
		}
		return v
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i := range v {
			v[i] = applyDefaults(v[i], items)
		}
		return v
	default:
		return v
	}
}

func deepCopy(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// defaultedNodeClass decodes an EC2NodeClass as the API server would store it.
func defaultedNodeClass(raw json.RawMessage) (*v1.EC2NodeClass, error) {
	schema, err := crdSchema()
	if err != nil {
		return nil, err
	}
	var obj any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, err
	}
	b, err := json.Marshal(applyDefaults(obj, schema))
	if err != nil {
		return nil, err
	}
	nc := &v1.EC2NodeClass{}
	return nc, json.Unmarshal(b, nc)
}
