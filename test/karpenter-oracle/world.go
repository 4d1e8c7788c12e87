package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	awsssm "github.com/aws/aws-sdk-go-v2/service/ssm"
	ssmtypes "github.com/aws/aws-sdk-go-v2/service/ssm/types"
	corev1 "k8s.io/api/core/v1"

	v1 "github.com/aws/karpenter-provider-aws/pkg/apis/v1"
	"github.com/aws/karpenter-provider-aws/pkg/providers/amifamily"
)

// ImageCreationDate is the creation date of every image an SSM parameter points at.
const ImageCreationDate = "2026-01-01T00:00:00.000Z"

// parameterStore answers every GetParameter: the value is an AMI id derived from the name, so the
// same parameter always names the same image, on this side and on the one compared with it.
type parameterStore struct {
	values map[string]string
}

func parameterImageID(name string) string {
	sum := sha256.Sum256([]byte(name))
	return "ami-" + hex.EncodeToString(sum[:])[:17]
}

func (p *parameterStore) GetParameter(_ context.Context, in *awsssm.GetParameterInput, _ ...func(*awsssm.Options)) (*awsssm.GetParameterOutput, error) {
	name := aws.ToString(in.Name)
	id := parameterImageID(name)
	p.values[name] = id
	return &awsssm.GetParameterOutput{Parameter: &ssmtypes.Parameter{Name: aws.String(name), Value: aws.String(id)}}, nil
}

// images are the images the parameters read so far point at. Their architecture is the one the
// parameter's path names; a Bottlerocket image is named as Bottlerocket names its releases, since
// Karpenter reads the Bottlerocket version from the image name.
func (p *parameterStore) images(k8sVersion string) []Image {
	names := make([]string, 0, len(p.values))
	for n := range p.values {
		names = append(names, n)
	}
	sort.Strings(names)
	out := []Image{}
	for _, n := range names {
		arch := "x86_64"
		if strings.Contains(n, "arm64") {
			arch = "arm64"
		}
		name := strings.Trim(strings.ReplaceAll(n, "/", "-"), "-")
		if strings.Contains(n, "bottlerocket") {
			variant := "aws-k8s-" + k8sVersion
			if strings.Contains(n, "nvidia") {
				variant += "-nvidia"
			}
			name = fmt.Sprintf("bottlerocket-%s-%s-v1.50.0-0123abcd", variant, arch)
		}
		out = append(out, Image{ID: p.values[n], Name: name, Architecture: arch, CreationDate: ImageCreationDate})
	}
	return out
}

func toEC2Images(images []Image) []ec2types.Image {
	out := make([]ec2types.Image, 0, len(images))
	for _, i := range images {
		img := ec2types.Image{
			ImageId:      aws.String(i.ID),
			Name:         aws.String(i.Name),
			Architecture: ec2types.ArchitectureValues(i.Architecture),
			CreationDate: aws.String(i.CreationDate),
			State:        ec2types.ImageStateAvailable,
		}
		for k, v := range i.Tags {
			img.Tags = append(img.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
		out = append(out, img)
	}
	return out
}

// statusAMIs is the EC2NodeClass status the AMI controller writes from the provider's list.
func statusAMIs(amis amifamily.AMIs) []v1.AMI {
	out := make([]v1.AMI, 0, len(amis))
	for _, a := range amis {
		reqs := []corev1.NodeSelectorRequirement{}
		for _, r := range a.Requirements.NodeSelectorRequirements() {
			reqs = append(reqs, corev1.NodeSelectorRequirement{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
		sort.Slice(reqs, func(i, j int) bool { return reqs[i].Key < reqs[j].Key })
		out = append(out, v1.AMI{ID: a.AmiID, Name: a.Name, Deprecated: a.Deprecated, Requirements: reqs})
	}
	return out
}

type fixedVersion string

func (v fixedVersion) Get(context.Context) string { return string(v) }

func (v fixedVersion) UpdateVersion(context.Context) error { return nil }

func (v fixedVersion) UpdateVersionWithValidation(context.Context) error { return nil }

func decodeBase64(s string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("user data is not base64: %w", err)
	}
	return string(b), nil
}
