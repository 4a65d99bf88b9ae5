// Everything a generated kernel shard includes from the runtime.
#pragma once

#include <ATen/ATen.h>
#include <ATen/Functions.h>
#include <ATen/Operators.h>
#include <torch/library.h>

#include <torch_fl/device.h>
#include <torch_fl/elementwise_memo.h>
#include <torch_fl/fallback.h>
#include <torch_fl/generator.h>
#include <torch_fl/op_context.h>
#include <torch_fl/output_rules.h>
#include <torch_fl/output_rules_attention.h>
#include <torch_fl/output_rules_torchvision.h>
#include <torch_fl/profiler_range.h>
#include <torch_fl/stream.h>
