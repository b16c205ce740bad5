import { describe, expect, it } from "vitest";
import { parseHcl } from "./hcl-parser.js";
import { evaluate, loadModule, referencesAddress, Unknown, valueAt } from "./terraform-module.js";

const SOURCE = `# a comment
terraform {
  required_version = ">= 1.7.0" // trailing
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

/* a block
   comment */
locals {
  tags = { Environment = "prd", Project = "trellis" }
}

variable "project" {
  type    = string
  default = "trellis"
}

resource "aws_s3_bucket" "logs" {
  bucket        = "\${var.project}-prd-logs"
  force_destroy = false
  tags          = merge(local.tags, { Name = "x" })
  count         = var.enabled ? 1 : 0
  names         = [for n in var.names : upper(n)]
  policy        = <<-EOT
    {"Statement": [{"Effect": "Allow", "Principal": "*"}]}
  EOT
  lifecycle { prevent_destroy = true }
}

resource "aws_s3_bucket_versioning" "logs" {
  bucket = aws_s3_bucket.logs.id
  versioning_configuration {
    status = "Enabled"
  }
}
`;

describe("parseHcl", () => {
  it("reads blocks, labels, attributes with their lines, and nested blocks", () => {
    const file = parseHcl(SOURCE, "main.tf");
    expect(file.errors).toEqual([]);
    expect(file.blocks.map((b) => [b.type, ...b.labels, b.line])).toEqual([
      ["terraform", 2],
      ["locals", 14],
      ["variable", "project", 18],
      ["resource", "aws_s3_bucket", "logs", 23],
      ["resource", "aws_s3_bucket_versioning", "logs", 35],
    ]);
    const bucket = file.blocks[3];
    expect(bucket?.attributes.force_destroy).toEqual({
      name: "force_destroy",
      value: { kind: "bool", value: false },
      line: 25,
    });
    expect(bucket?.attributes.bucket?.value).toEqual({
      kind: "string",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Terraform interpolation
      value: "${var.project}-prd-logs",
      template: true,
    });
    expect(bucket?.attributes.count?.value).toEqual({ kind: "raw", text: "var.enabled ? 1 : 0" });
    expect(bucket?.attributes.names?.value).toEqual({ kind: "raw", text: "[for n in var.names : upper(n)]" });
    expect(bucket?.attributes.policy?.value).toMatchObject({
      kind: "string",
      value: '{"Statement": [{"Effect": "Allow", "Principal": "*"}]}\n',
    });
    expect(bucket?.blocks[0]).toMatchObject({
      type: "lifecycle",
      attributes: { prevent_destroy: { value: { kind: "bool", value: true } } },
    });
    expect(file.blocks[0]?.blocks[0]?.attributes.aws?.value).toEqual({
      kind: "object",
      entries: {
        source: { kind: "string", value: "hashicorp/aws", template: false },
        version: { kind: "string", value: "~> 5.0", template: false },
      },
    });
  });

  it("reports syntax errors with the line, keeping what parsed before", () => {
    const broken = parseHcl(
      'resource "a" "b" {\n  x = 1\n}\nresource "c" "d" {\n  name = "unterminated\n}\n',
      "bad.tf",
    );
    expect(broken.errors).toEqual([{ message: "bad.tf:5: unterminated string", file: "bad.tf", line: 5 }]);
    expect(broken.blocks.map((b) => b.labels.join("."))).toEqual(["a.b"]);
    expect(parseHcl('resource "a" "b" {\n  x = 1\n', "open.tf").errors[0]?.message).toBe(
      'open.tf:3: missing "}" at the end of a block',
    );
    expect(parseHcl("x = = 1\n", "eq.tf").errors).toHaveLength(1);
  });
});

describe("static evaluation", () => {
  const mod = loadModule([{ path: "main.tf", content: SOURCE }]);
  const bucket = mod.resources.find((r) => r.address === "aws_s3_bucket.logs");

  it("resolves locals, variable defaults, merge() and templates; keeps the rest unknown", () => {
    expect(mod.resources.map((r) => r.address)).toEqual(["aws_s3_bucket.logs", "aws_s3_bucket_versioning.logs"]);
    expect(evaluate(mod, bucket?.block.attributes.bucket?.value)).toBe("trellis-prd-logs");
    expect(evaluate(mod, bucket?.block.attributes.tags?.value)).toEqual({
      Environment: "prd",
      Project: "trellis",
      Name: "x",
    });
    expect(evaluate(mod, bucket?.block.attributes.count?.value)).toEqual(new Unknown("var.enabled ? 1 : 0"));
    const versioning = mod.resources[1];
    expect(versioning && valueAt(mod, versioning.block, "versioning_configuration.status")).toBe("Enabled");
    expect(versioning && referencesAddress(versioning.block, "aws_s3_bucket.logs")).toBe(true);
    expect(versioning && referencesAddress(versioning.block, "aws_s3_bucket.log")).toBe(false);
  });
});
