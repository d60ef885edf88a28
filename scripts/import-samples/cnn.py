"""A small CNN step (convolution, matmul, elementwise, reduction kernels) on the GPU.

  python3 cnn.py --profile OUT.json   runs it under torch.profiler and writes Kineto's Chrome JSON
  python3 cnn.py                      runs it plain (for ncu --csv)
Used by scripts/make-import-samples.sh to make the importer's test files (tests/data/import/).
"""
import argparse

import torch
import torch.nn as nn


class SmallCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = torch.relu(self.conv1(x))
        x = torch.max_pool2d(x, 2)
        x = torch.relu(self.conv2(x))
        x = torch.max_pool2d(x, 2)
        return self.fc(x.flatten(1))


def step(model, host_batch):
    x = host_batch.to("cuda")  # a host-to-device copy
    y = model(x)
    loss = torch.softmax(y, dim=1).sum()  # a reduction
    z = torch.zeros(1024, device="cuda")  # a fill (PyTorch launches a FillFunctor kernel for it)
    scores = (y * 2.0 + 1.0).cpu()  # elementwise, then a device-to-host copy
    return loss.item() + float(z.sum()) + float(scores[0, 0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", help="write torch.profiler's Chrome trace here")
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = SmallCnn().cuda().eval()
    host_batch = torch.randn(8, 3, 32, 32)
    with torch.no_grad():
        step(model, host_batch)  # warm-up: cuDNN picks its algorithms outside the profile
        torch.cuda.synchronize()
        if not args.profile:
            for _ in range(args.steps):
                step(model, host_batch)
            torch.cuda.synchronize()
            return
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
            for _ in range(args.steps):
                step(model, host_batch)
            torch.cuda.synchronize()
        prof.export_chrome_trace(args.profile)


if __name__ == "__main__":
    main()
