#!/usr/bin/env node
import '../dist/app/node-cli.js';
