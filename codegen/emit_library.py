"""Other libraries' ops (`namespaces:` in the spec, e.g. torchvision::nms): their
device kernels, registered under the library's namespace. The library defines
the schemas; its autograd kernels (registered for every backend) call these
through the dispatcher, so a backward op listed here is what they reach."""
from __future__ import annotations

from dataclasses import dataclass

from .emit_blocks import CppBlock, source
from .emit_kernel import kernel_block, raising_registration, registration
from .emit_launch import launch_block
from .plan_model import BackendPlan, OpOrigin
from .spec_model import FallbackPolicy


@dataclass(frozen=True)
class LibraryFile:
    namespace: str
    version: str  # of the library the schemas were read from
    blocks: tuple[CppBlock, ...]
    registrations: tuple[str, ...]  # PrivateUse1 kernels

    @property
    def file_name(self) -> str:
        return f"library_{self.namespace}.cpp"


def library_files(plan: BackendPlan) -> list[LibraryFile]:
    files = []
    for namespace, version in plan.libraries:
        blocks, registrations = [], []
        for kernel in plan.kernels:
            if kernel.origin != OpOrigin.LIBRARY or kernel.namespace != namespace:
                continue
            if kernel.launch is None:
                # An entry without a call: `cpu` is the backend fallback's already, `error` raises.
                if kernel.dtypes.fallback == FallbackPolicy.ERROR:
                    registrations.append(raising_registration(kernel))
                continue
            blocks.append(launch_block(plan, kernel.launch, source(kernel)))
            blocks.append(kernel_block(kernel))
            registrations.append(registration(kernel))
        files.append(LibraryFile(namespace, version, tuple(blocks), tuple(registrations)))
    return files
