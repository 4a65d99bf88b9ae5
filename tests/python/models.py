"""Small models that exercise what real training needs: an MLP, a ResNet-style
CNN and a GPT-style decoder. Used by the training-parity tests."""
from __future__ import annotations


import torch
from torch import nn
from torch.nn import functional as F


class ResidualBlock(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(x + self.bn2(self.conv2(y)))


class SmallResNet(nn.Module):
    def __init__(self, classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2))
        self.block = ResidualBlock(8)
        self.pool = nn.AvgPool2d(2)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, classes))

    def forward(self, x):
        return self.head(self.pool(self.block(self.stem(x))))


class CausalSelfAttention(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.dropout = dropout

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True,
                                           dropout_p=self.dropout if self.training else 0.0)
        return self.proj(y.transpose(1, 2).contiguous().view(b, t, c))


class DecoderBlock(nn.Module):
    def __init__(self, dim: int, heads: int, dropout: float):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads, dropout)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim), nn.Dropout(dropout))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyGPT(nn.Module):
    def __init__(self, vocab: int = 50, dim: int = 32, heads: int = 4, layers: int = 2, context: int = 16,
                 dropout: float = 0.0):
        super().__init__()
        self.token = nn.Embedding(vocab, dim)
        self.position = nn.Embedding(context, dim)
        self.blocks = nn.Sequential(*[DecoderBlock(dim, heads, dropout) for _ in range(layers)])
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.drop = nn.Dropout(dropout)

    def forward(self, idx):
        positions = torch.arange(idx.shape[1], device=idx.device)
        x = self.drop(self.token(idx) + self.position(positions))
        return self.head(self.ln(self.blocks(x)))


def image_batch(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(8, 3, 16, 16, generator=g), torch.randint(0, 10, (8,), generator=g)


def token_batch(seed: int = 0, vocab: int = 50, context: int = 16):
    g = torch.Generator().manual_seed(seed)
    data = torch.randint(0, vocab, (4, context + 1), generator=g)
    return data[:, :-1], data[:, 1:]


def classification_loss(model, inputs, targets):
    return F.cross_entropy(model(inputs), targets)


def language_model_loss(model, tokens, targets):
    logits = model(tokens)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
