package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily/bootstrap"
	nodeadmv1alpha1 "github.com/awslabs/amazon-eks-ami/nodeadm/api/v1alpha1"
	"github.com/pelletier/go-toml/v2"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
)

// nodeadm decodes a NodeConfig document through a runtime.Scheme holding its v1alpha1 API
// (internal/api/bridge.DecodeNodeConfig); the bridge and its internal types are internal to
// nodeadm's module, so this builds the same scheme from the public API package and decodes into
// the versioned type, strictly: a field NodeConfig has not, or one given twice, is an error.
var nodeConfigCodecs = func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	if err := nodeadmv1alpha1.AddToScheme(scheme); err != nil {
		panic(err)
	}
	return serializer.NewCodecFactory(scheme, serializer.EnableStrict)
}()

// decodeNodeConfig is one NodeConfig document as nodeadm's API types hold it, re-encoded as JSON
// (so two renderings that mean the same NodeConfig compare equal), or why nodeadm's decoder refuses it.
func decodeNodeConfig(doc []byte) (map[string]any, error) {
	obj, gvk, err := nodeConfigCodecs.UniversalDeserializer().Decode(doc, nil, nil)
	if err != nil {
		return nil, err
	}
	config, ok := obj.(*nodeadmv1alpha1.NodeConfig)
	if !ok {
		return nil, fmt.Errorf("decoded %s, not a NodeConfig", gvk)
	}
	return viaJSON(config)
}

// bottlerocketUserData is Karpenter's Bottlerocket user data as its own settings type reads it
// (pkg/providers/amifamily/bootstrap.BottlerocketSettings), with nothing else allowed.
type bottlerocketUserData struct {
	Settings bootstrap.BottlerocketSettings `toml:"settings"`
}

// decodeBottlerocket decodes TOML into Karpenter's settings struct with a decoder that refuses
// unknown keys, and returns what the struct holds, or the keys it has no field for.
func decodeBottlerocket(text string) (map[string]any, error) {
	var out bottlerocketUserData
	decoder := toml.NewDecoder(bytes.NewReader([]byte(text))).DisallowUnknownFields()
	err := decoder.Decode(&out)
	if _, unknown := err.(*toml.StrictMissingError); err != nil && !unknown {
		return nil, err
	}
	// Written back through the same struct's TOML tags, so the result has the document's own key names: a value
	// the struct reads differently (or not at all) is then a difference at that key.
	written, merr := toml.Marshal(out)
	if merr != nil {
		return nil, merr
	}
	settings := map[string]any{}
	if uerr := toml.Unmarshal(written, &settings); uerr != nil {
		return nil, uerr
	}
	if err != nil {
		// go-toml names a key by the table headers the document happens to write ([a.b] then [a.b.c], or only
		// [a.b.c]); the outermost keys the struct kept nothing of name the same unknown keys whatever the spelling.
		raw := map[string]any{}
		if rerr := toml.Unmarshal([]byte(text), &raw); rerr != nil {
			return nil, rerr
		}
		return nil, fmt.Errorf("Karpenter's BottlerocketSettings has no field for %s", strings.Join(missingKeys(raw, settings, ""), ", "))
	}
	return settings, nil
}

// missingKeys lists the outermost keys of raw that kept lacks, sorted.
func missingKeys(raw, kept map[string]any, prefix string) []string {
	var out []string
	for key, value := range raw {
		path := prefix + key
		inner, isTable := value.(map[string]any)
		keptValue, ok := kept[key]
		keptInner, keptTable := keptValue.(map[string]any)
		switch {
		case !ok:
			out = append(out, path)
		case isTable && keptTable:
			out = append(out, missingKeys(inner, keptInner, path+".")...)
		}
	}
	sort.Strings(out)
	return out
}

func viaJSON(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	return out, json.Unmarshal(raw, &out)
}
