import { performance } from 'node:perf_hooks';
import { startFakeUpstream } from '../test/support/fake-upstreams.js';
import { startTestNode } from '../test/support/node.js';
const K = Number(process.argv[2] ?? 4);
const method = process.argv[3] ?? 'chat';
const fake = await startFakeUpstream();
const t = await startTestNode();
const ok = async (m, p, b) => { const r = await t.admin.request(m, p, b === undefined ? {} : { body: b }); if (r.status >= 300) throw new Error(JSON.stringify(r.body)); return r.body.data; };
await ok('POST', '/api/v1/plugins/mcp-passthrough/enable'); await t.restart();
await ok('PUT','/api/v1/system/settings',{rate_limit_enabled:false});
await ok('POST','/api/v1/plugins/mcp-passthrough/configure',{set:{mode:'open'},provider:{id:'f',preset:'openai-compatible',endpoint:fake.openaiUrl,models:[{id:'b',enabled:true,pricing_mode:'manual'}]},active:{provider:'f',model:'b'}});
const url = `${t.node.baseUrl}/p/mcp-passthrough/mcp`;
const all=[]; const direct=[];
for (let k=0;k<K;k++) {
  const key = await ok('POST','/api/v1/plugins/mcp-passthrough/key-create',{label:'x'});
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key.token}` };
  const init = await fetch(url,{method:'POST',headers:base,body:JSON.stringify({jsonrpc:'2.0',id:0,method:'initialize',params:{protocolVersion:'2025-11-25',capabilities:{},clientInfo:{name:'b',version:'1'}}})}); await init.text();
  const headers={...base,'mcp-session-id':init.headers.get('mcp-session-id'),'mcp-protocol-version':'2025-11-25'};
  await (await fetch(url,{method:'POST',headers,body:JSON.stringify({jsonrpc:'2.0',method:'notifications/initialized'})})).text();
  let id=1;
  for (let i=0;i<550;i++){
    const t0=performance.now();
    const body = method==='chat' ? {jsonrpc:'2.0',id:id++,method:'tools/call',params:{name:'chat.completion',arguments:{messages:[{role:'user',content:'hi'}],max_output_tokens:16}}} : method==='balance' ? {jsonrpc:'2.0',id:id++,method:'tools/call',params:{name:'balance.check',arguments:{}}} : {jsonrpc:'2.0',id:id++,method:'ping'};
    const txt = await fetch(url,{method:'POST',headers,body:JSON.stringify(body)}).then(r=>r.text());
    if (i===0 && k===0) console.log(txt.slice(0,100));
    if (i>=50) all.push(performance.now()-t0);
    const t1=performance.now();
    await fetch(`${fake.openaiUrl}/chat/completions`,{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({model:'b',messages:[{role:'user',content:'hi'}],max_tokens:16})}).then(r=>r.text());
    if (i>=50) direct.push(performance.now()-t1);
  }
}
const med=a=>a.sort((x,y)=>x-y)[Math.floor(a.length/2)].toFixed(3);
console.log(method, 'via p50', med(all), 'direct p50', med(direct));
await t.destroy(); await fake.close(); process.exit(0);
