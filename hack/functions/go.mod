module porch-pepr/hack/functions

go 1.26.0
