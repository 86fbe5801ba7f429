module porch-pepr/hack/localnode/images

go 1.26.0
